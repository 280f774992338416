package io.loomgate.server;

import java.io.IOException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.Collection;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Notices an HTTP/1.1 client that closed its connection while its exchange waits for a slow origin, and cancels the
 * exchange as an HTTP/2 client's RST_STREAM does (the origin's request is aborted, the exchange logged 499
 * {@code client_aborted}), where before the origin call ran to its end for nobody: once a request is read nothing
 * reads the client's socket until the next one (nginx's {@code ngx_http_upstream_check_broken_connection}).
 *
 * <p>Costs nothing on a fast exchange: one sweeper per listener ({@link #sweep}) looks every {@link #SWEEP_NANOS} at
 * the exchanges the connections registered anyway (for the drain's cut, {@link DrainCut}), and only an exchange seen
 * waiting for {@link #WAIT_BEFORE_WATCH_NANOS} gets a watcher: a virtual thread that reads the connection's own input
 * ({@link Http1ServerExchange#awaitClientBytes}, through TLS when there is TLS), so bytes it reads (a pipelined
 * request, TLS records) stay in the connection's buffer, where the next request's read finds them: no pushback is
 * needed, the input is the same object. Each read is bounded by {@link #WATCH_READ_MILLIS} of {@code SO_TIMEOUT} on
 * the raw socket (the soft bound the idle hand-off uses, not the watchdog's cut), so the watcher ends within that once
 * the exchange is over, and the connection's thread waits for it ({@link Http1ServerExchange#handled}) before it
 * reads again. A non-blocking read of the JDK channel was not used: {@code configureBlocking} takes the channel's
 * write lock, which a response write blocked on a slow client holds.
 *
 * <p>What the watcher's read finds: the end of stream, or an error on a socket the gateway did not close, is the
 * client gone; bytes are a client still there (it sent its next request), and the watch ends; a read that times out
 * reads again while the exchange runs. A client that only half-closed reads the same as one that left (nginx's 499
 * counts it so too).
 */
final class LeftClientWatch {
    private static final Logger log = LoggerFactory.getLogger(LeftClientWatch.class);
    /** How long an exchange waits before its client is watched: a fast exchange is never looked at. */
    static final long WAIT_BEFORE_WATCH_NANOS = TimeUnit.SECONDS.toNanos(1);
    /** How often the sweeper looks at the listener's connections. */
    static final long SWEEP_NANOS = TimeUnit.MILLISECONDS.toNanos(250);
    /**
     * Each watching read's bound: how long the connection's thread may wait for the watcher once the exchange ended
     * and its client sent nothing (a client that sends its next request ends the watcher's read at once).
     */
    static final int WATCH_READ_MILLIS = 100;
    /** The longest the connection's thread waits for its watcher; past it the connection closes (see handled()). */
    static final long JOIN_BOUND_MILLIS = 1_000;

    private LeftClientWatch() {
    }

    /** The listener's sweeper: until {@code stopping}, looks at every open connection each {@link #SWEEP_NANOS}. */
    static void sweepUntil(BooleanSupplier stopping, Collection<ClientConnection> open) {
        try {
            while (!stopping.getAsBoolean()) {
                TimeUnit.NANOSECONDS.sleep(SWEEP_NANOS);
                try {
                    sweep(open, System.nanoTime(), stopping);
                } catch (RuntimeException e) { // a bug, or a thread that could not start: the next pass tries again
                    log.error("a pass of the sweeper for clients that left failed", e);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** One pass: starts a watcher for each exchange seen waiting since {@link #WAIT_BEFORE_WATCH_NANOS}. */
    static void sweep(Collection<ClientConnection> open, long now, BooleanSupplier stopping) {
        for (ClientConnection c : open) {
            DrainCut d = c.drainCut();
            Http1ServerExchange e = d.dueForWatch(now, WAIT_BEFORE_WATCH_NANOS);
            // Not once the listener stops: the drain's own look reads the raw socket then (DrainCut).
            if (e != null && !stopping.getAsBoolean()) {
                Thread.ofVirtual().name("client-watch-", c.id()).start(() -> watch(d, e));
            }
        }
    }

    /** The watcher of one exchange, on a thread of its own; ends when it ends, or at what it finds. */
    private static void watch(DrainCut d, Http1ServerExchange e) {
        if (!e.claimWatch()) {
            return; // the exchange ended first: the input is its connection's again
        }
        Socket raw = d.raw();
        try {
            raw.setSoTimeout(WATCH_READ_MILLIS);
            while (e.watched()) {
                try {
                    if (!e.awaitClientBytes()) {
                        left(d, e, "closed its connection");
                    }
                    return; // the end of stream, or bytes: the client is there (its next request waits for its turn)
                } catch (SocketTimeoutException quiet) {
                    // nothing yet: look again while the exchange runs
                }
            }
        } catch (IOException broken) {
            if (e.watched() && !raw.isClosed()) { // not the gateway's own close (the exchange's end, the drain's cut)
                left(d, e, "reset its connection (" + broken.getMessage() + ")");
            }
        } finally {
            try {
                raw.setSoTimeout(0); // the connection's reads are bounded by the watchdog, not SO_TIMEOUT
            } catch (IOException closed) {
                // closed meanwhile: nothing reads it any more
            }
        }
    }

    private static void left(DrainCut d, Http1ServerExchange e, String how) {
        if (e.watched() && d.markLeft(e)) {
            log.debug("connection {}: its client {} while the exchange waited for its origin: cancelled",
                    e.connectionId(), how);
            e.cancel().clientCancelled();
        }
    }
}
