package io.loomgate.server;

import io.loomgate.threads.VarHandles;

import java.io.IOException;
import java.io.InputStream;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A connection's side of the drain's deadline: whether the drain cut it (set before its socket closes, so an exchange
 * that fails on the closed socket reports the drain's cut, not a client that left), whether its client had left
 * before that, and the HTTP/1.1 exchange it is handling then, whose cancel the cut runs. Closing the socket alone
 * does not end a handler waiting for its origin; HTTP/2's streams are cancelled by their connection's end instead,
 * so they register nothing here.
 *
 * <p>A client that left first: once an HTTP/1.1 request is read, nothing reads its client's socket until the next
 * request, so a client that closes its connection while the exchange waits for a slow origin is noticed only when a
 * write to it fails. During a drain the deadline's cut came first, and the exchange was logged {@code drain_cut}
 * though its client had gone (session 60). So at the deadline, before the cut, the drain looks at each such
 * connection ({@link #lookForClientsThatLeft}): the end of stream (or a reset) there means the client left, and the
 * exchange the cut then cancels is the client's ({@code client_aborted}). A client that only shut down its sending
 * side (a half-close, rare over HTTP/1.1) reads the same and is counted as gone, as nginx counts it (499).
 *
 * <p>Threading: {@link #register} and {@link #clear} run on the connection's thread, {@link #mark} and
 * {@link #cancelExchange} on the drain's, the look on a thread of its own. Each side writes its volatile, then reads
 * the other's, so at least one of them runs the cancel (it may run twice, which a {@code ClientCancel} allows). The
 * state goes from open to left or to cut once: a look that ends after the cut changes nothing.
 */
final class DrainCut {
    private static final VarHandle EXCHANGE =
            VarHandles.field(MethodHandles.lookup(), "exchange", Http1ServerExchange.class);
    private static final VarHandle STATE = VarHandles.field(MethodHandles.lookup(), "state", int.class);
    private static final int OPEN = 0;
    private static final int LEFT = 1;
    private static final int CUT = 2;
    /**
     * How long a look waits for the client's end of stream: it is in the kernel already when the client left, so
     * this is only how long a client that is still there costs (each look on a thread of its own, all at once).
     */
    private static final int LOOK_MILLIS = 1;
    /** What the drain waits for all its looks at most; a look not done by then leaves its connection cut. */
    private static final long LOOKS_BUDGET_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    /** Bytes a look reads past (a pipelined request, TLS records) looking for the end: never answered now. */
    private static final int MAX_SKIPPED = 64 * 1024;

    /** The accepted TCP socket (under TLS too: the look wants the end of stream, not what the records say). */
    private final Socket raw;
    /** OPEN, LEFT or CUT: moved off OPEN once, by compare-and-set through {@link #STATE}. */
    private volatile int state;
    /** The HTTP/1.1 exchange now handled; null between exchanges, so an idle connection holds no exchange. */
    private volatile Http1ServerExchange exchange;

    DrainCut(Socket raw) {
        this.raw = raw;
    }

    /** Whether the drain's deadline cut the connection (and its client had not left before). */
    boolean isCut() {
        return state == CUT;
    }

    /** Whether the drain's deadline closed the connection, cut or after its client left. */
    boolean isClosed() {
        return state != OPEN;
    }

    /** The drain's deadline passed with the connection open: marked before the socket closes, unless its client left. */
    void mark() {
        STATE.compareAndSet(this, OPEN, CUT);
    }

    /** After the close: the exchange's wait for its origin ends within the cancel's bound, which the drain waits for. */
    void cancelExchange() {
        Http1ServerExchange e = exchange;
        if (e != null) {
            e.cancel().clientCancelled();
        }
    }

    /** An HTTP/1.1 exchange starts to be handled; a cut that looked before this was set is run here. */
    void register(Http1ServerExchange e) {
        exchange = e;
        if (isCut()) {
            e.cancel().clientCancelled();
        }
    }

    /** The exchange's handler returned: it is forgotten (a release store: nothing reads after it). */
    void clear() {
        EXCHANGE.setRelease(this, (Http1ServerExchange) null);
    }

    /**
     * Before the drain's cut: looks, all at once, at each connection whose exchange reads nothing more from its
     * client, and marks those whose client left; waits {@link #LOOKS_BUDGET_NANOS} for the looks at most. Returns
     * how many clients had left (for the drain's log line).
     */
    static int lookForClientsThatLeft(Collection<ClientConnection> open) throws InterruptedException {
        List<DrainCut> looked = new ArrayList<>();
        List<Thread> looks = new ArrayList<>();
        for (ClientConnection c : open) {
            DrainCut d = c.drainCut();
            Http1ServerExchange e = d.exchange;
            // Only where no thread of the gateway reads the client (its body read to its end, no tunnel), and not a
            // socket whose input the gateway shut down itself (its end of stream is ours, not the client's).
            if (e != null && e.readsClientNoMore() && !d.raw.isInputShutdown()) {
                looked.add(d);
                looks.add(Thread.ofVirtual().name("drain-look-", c.id()).start(d::look));
            }
        }
        long deadline = System.nanoTime() + LOOKS_BUDGET_NANOS;
        for (Thread t : looks) {
            long left = deadline - System.nanoTime();
            if (left <= 0 || !t.join(Duration.ofNanos(left))) {
                break; // the rest are cut (a look that ends later finds the state cut and changes nothing)
            }
        }
        int gone = 0;
        for (DrainCut d : looked) {
            // a look still running may mark its client gone after this count, before the cut: only the log misses it
            gone += d.state == LEFT ? 1 : 0;
        }
        return gone;
    }

    /** One look: the end of stream or a reset is the client's leaving; a read that times out, a client still there. */
    private void look() {
        try {
            raw.setSoTimeout(LOOK_MILLIS); // the connection is closed after the look whatever it finds
            InputStream in = raw.getInputStream();
            byte[] skipped = new byte[512];
            for (int total = 0; total < MAX_SKIPPED; ) {
                int n = in.read(skipped);
                if (n < 0) {
                    STATE.compareAndSet(this, OPEN, LEFT);
                    return;
                }
                total += n;
            }
        } catch (SocketTimeoutException stillThere) {
            // nothing more came: the client waits for its answer
        } catch (IOException e) {
            if (!raw.isClosed()) { // closed by us (the exchange ended, or the cut): not the client's doing
                STATE.compareAndSet(this, OPEN, LEFT); // a reset: the client is gone
            }
        }
    }
}
