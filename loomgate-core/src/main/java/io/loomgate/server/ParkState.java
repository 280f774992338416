package io.loomgate.server;

import io.loomgate.http2.ConnectionParking;
import io.loomgate.http2.Http2Connection;
import io.loomgate.threads.NanoClock;
import io.loomgate.threads.VarHandles;
import io.loomgate.tls.ServerTls;
import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.net.Socket;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import javax.net.ssl.SSLSocket;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where one client connection stands with the idle poller ({@link IdlePoller}: {@link IdleConnections} on the JDK's
 * sockets, {@link EpollIdleConnections} on epoll), whichever protocol it speaks:
 * HTTP/1.1's keep-alive loop ({@link Http1ServerConnection}) and HTTP/2's frame reader ({@link Http2Connection},
 * through {@link ConnectionParking}) both ask it how to wait for the next request and hand the connection over
 * through it; the poller holds it while the connection is parked. Made only for a connection that may park (a socket
 * its poller can watch, a hand-off delay shorter than the idle timeout).
 *
 * <p>The state: {@link #RUNNING} (a thread runs the connection), {@link #PARKED} (the poller's, no thread),
 * {@link #RESUMING} or {@link #CLOSING} (taken off the selector). Whoever moves it out of PARKED (compare-and-set)
 * owns the connection from then on; every other party loses and leaves it alone, so a connection that is both
 * readable and evicted (or expired, or shut down) is resumed or ended once.
 *
 * <p>How to wait: a timed wait (one that can end softly after the hand-off delay, then park) arms and cancels a JDK
 * timer: measured at W2, 1.9 more futex calls per request when every wait was timed. So a <em>busy</em> connection,
 * one whose previous wait ended within the hand-off delay, waits untimed under the read watchdog's idle deadline and
 * never parks; every other wait is timed. The first wait after a resumption ends at once on the bytes that came while
 * parked and is not learned from, nor (the caller says) the waits of a connection's first request or stream. The
 * price: a connection that falls silent right after a quick exchange keeps its thread until its next request or its
 * idle timeout. (A shorter "busy" mark, a few milliseconds, was tried: on a loaded core the time between a response
 * and the next request's bytes stretches past it and the timers came back.) A new connection's wait after its first
 * request blocks on its thread only while the poller grants it one of its few hand-off permits
 * ({@link IdleConnections#startHandoff}); without one the connection parks at once.
 */
final class ParkState implements ConnectionParking {
    /** A thread of its own runs the connection (also before the first park, and when ended). */
    static final int RUNNING = 0;
    /** Handed to the idle poller: queued or registered with its selector, no thread. */
    static final int PARKED = 1;
    /** Taken off the selector to run again on a new thread (the poller's until that thread starts). */
    static final int RESUMING = 2;
    /** Taken off the selector to be ended (idle timeout, drain, the listener's end, a failure). */
    static final int CLOSING = 3;

    /** The connection's own log category: what an operator turns up for one connection's story. */
    private static final Logger log = LoggerFactory.getLogger(ClientConnection.class);
    private static final VarHandle STATE = VarHandles.field(MethodHandles.lookup(), "state", int.class);

    private final ClientConnection connection;
    /**
     * The accepted socket: what the poller watches (its channel, or its epoll registration); its SO_TIMEOUT bounds
     * the timed waits.
     */
    private final Socket raw;
    private final IdlePoller poller;
    /** The clock of idle deadlines: the read watchdog's, as the poller's. */
    private final NanoClock clock;
    private final long handoffNanos;
    /** {@link #RUNNING}, {@link #PARKED}, {@link #RESUMING} or {@link #CLOSING} (CAS through {@link #STATE}). */
    @SuppressWarnings("unused")
    private volatile int state;
    /** When a parked connection's idle timeout passes (on {@link #clock}); read by the poller. */
    private long parkedUntil;
    /** The selection key while registered with the poller's selector; the poller's thread only. */
    SelectionKey key;
    /** Whether the previous wait ended within the hand-off delay: the next waits untimed. Connection's thread. */
    private boolean busy;
    /** Whether the connection was resumed after a park and has not waited since. Connection's thread. */
    private boolean afterPark;
    /** Whether the connection holds one of the poller's hand-off permits now. Connection's thread. */
    private boolean handingOff;
    /**
     * Whether the connection was handed to the poller to await its client's first bytes ({@link
     * #parkBeforeFirstBytes}): it runs only once they came (or the client's FIN). Written before the hand-over, read
     * by the pool thread that runs it (the poller's and the executor's hand-offs order the two).
     */
    private boolean awaitedFirstBytes;

    /** @param handoff how long an idle wait blocks on the thread before the connection parks */
    ParkState(ClientConnection connection, Socket raw, IdlePoller poller, NanoClock clock, Duration handoff) {
        this.connection = connection;
        this.raw = raw;
        this.poller = poller;
        this.clock = clock;
        this.handoffNanos = handoff.toNanos();
    }

    // --- how the connection's own thread waits and parks ---

    @Override
    public long handOffNanos() {
        return handoffNanos;
    }

    @Override
    public void boundReads(int millis) throws IOException {
        raw.setSoTimeout(millis);
    }

    @Override
    public boolean waitsUntimed() {
        return busy;
    }

    @Override
    public void waitedUntimed(long nanos) {
        busy = nanos < handoffNanos;
    }

    /**
     * How much of the idle timeout a timed wait that begins now has left: all of {@code idleTimeoutNanos}, unless the
     * connection was resumed after a park and nothing has come since, when the parked wait goes on to its end. Over
     * TLS the bytes that resume a connection need not carry a request's: an empty application-data record, a warning
     * alert, a key update are read by the TLS layer and give the wait nothing. Before session 58 each such
     * resumption began a whole idle timeout anew, so a client that sent an empty record every few seconds held its
     * connection (and its buffers, and a slot of max-connections) for as long as it liked: over 20 s with
     * idle-timeout 4 s in HostileProbeTest, on JSSE without end, on Conscrypt until BoringSSL's limit of 32 empty
     * records in a row. Plain connections are unchanged: bytes that resume one are a request's, which clears this.
     */
    @Override
    public long idleLeftNanos(long idleTimeoutNanos) {
        return afterPark ? Math.max(RESUMED_LATE_NANOS, parkedUntil - clock.nanoTime()) : idleTimeoutNanos;
    }

    /**
     * The least wait of a connection resumed at or after its idle end (bytes that came just before the poller's sweep
     * would have closed it): long enough to read a request already sent, as a platform thread's first wait whose time
     * ran out in the pool's queue gets; nothing else waits.
     */
    private static final long RESUMED_LATE_NANOS = 1_000_000;

    /**
     * Whether this timed wait may block on the thread for the hand-off delay (false: park at once); {@code
     * firstRequestServed}: the wait follows the connection's first request. Such a wait of a new connection needs one
     * of the poller's permits, given back by {@link #handoffEnded()}; a wait after a resumption never does (it ends at
     * once on the bytes that resumed it, and parking it again would only resume it again).
     */
    boolean mayHandOff(boolean firstRequestServed) {
        if (!firstRequestServed || afterPark) {
            return true;
        }
        handingOff = poller.startHandoff();
        return handingOff;
    }

    /** The timed wait that {@link #mayHandOff} allowed ended, however: its permit, if it took one, back. */
    void handoffEnded() {
        if (handingOff) {
            handingOff = false;
            poller.endHandoff();
        }
    }

    @Override
    public void waitedTimed(boolean telling, long nanos) {
        busy = telling && !afterPark && nanos < handoffNanos;
        afterPark = false;
    }

    /**
     * HTTP/2's park, with this much of the idle timeout left; when drain began first, the frame reader goes on under
     * the GOAWAY asked for here.
     */
    @Override
    public boolean park(long idleLeftNanos) throws IOException {
        if (park(clock.nanoTime() + idleLeftNanos, true)) {
            return true;
        }
        connection.drainHttp2();
        return false;
    }

    /**
     * Hands the idle connection to the poller until {@code idleEnd} (on the read watchdog's clock): true when this
     * thread is done with it (parked, or ended here or by the poller), false when drain began first (nothing changed:
     * HTTP/1.1 then ends the connection, HTTP/2 goes on under GOAWAY).
     *
     * <p>PARKED comes first, and the socket's streams are dropped only after drain was looked at: drain writes a
     * GOAWAY through HTTP/2's frame writer, or closes an idle HTTP/1.1 socket, when it finds the connection RUNNING,
     * and that must never meet a channel in non-blocking mode. Drain sets draining, then looks at the park state;
     * this sets PARKED, then looks at draining: one of the two sees the other (both volatile). If drain saw RUNNING,
     * this sees draining and backs off before touching the socket; if drain saw PARKED, the poller ends the
     * connection (with its own GOAWAY on HTTP/2).
     *
     * @param keepOutput whether the socket's output stream and write deadline stay (HTTP/2's frame writer holds them)
     */
    boolean park(long idleEnd, boolean keepOutput) throws IOException {
        state = PARKED;
        if (connection.isDraining()) {
            // lost: drain's eviction took it, the poller ends it and this thread is done
            return !STATE.compareAndSet(this, PARKED, RUNNING);
        }
        connection.dropStreams(keepOutput);
        parkedUntil = idleEnd;
        afterPark = true;
        busy = false;
        // Once handed over, the poller may resume the connection on a new thread at once: nothing after this.
        if (!poller.park(this) && STATE.compareAndSet(this, PARKED, CLOSING)) {
            connection.endParked(); // the listener is closing: ended here, as the poller would have
        }
        return true;
    }

    /**
     * A new connection on a pool of platform threads waits here for its client's first bytes (the ClientHello, or the
     * first request), holding no pool thread, until {@code until} (on the read watchdog's clock); the poller runs it
     * on a pool thread when they come. True when this thread is done with it (parked, or ended here or by drain's
     * eviction); false when it could not park (drain began first, or the socket failed): the caller runs it on a
     * thread as before, and that thread ends it. No streams exist yet, so none are dropped; not a resumption (the
     * first read is the handshake's or the first request's, with no bytes read before it).
     *
     * <p>Why: a silent client (a TCP connect, no ClientHello or request) held one of the pool's few threads for a
     * whole timeout before, and N of them held the pool while clients that had sent their bytes queued behind them; a
     * TLS client's handshake deadline, counted from the accept, ran out in that queue (HostileProbeTest on
     * {@code platform:4}). HAProxy and nginx wait for these bytes in their event loops, as this does in the poller.
     */
    boolean parkBeforeFirstBytes(long until) {
        state = PARKED;
        if (connection.isDraining()) {
            return !STATE.compareAndSet(this, PARKED, RUNNING); // drain's eviction took it: the poller ends it
        }
        parkedUntil = until;
        awaitedFirstBytes = true;
        try {
            if (!poller.park(this) && STATE.compareAndSet(this, PARKED, CLOSING)) {
                connection.endParked(); // the listener is closing: ended here, as the poller would have
            }
            return true;
        } catch (IOException | RuntimeException e) {
            // Not handed over (its channel closed meanwhile): whoever else took it ends it, else its thread does.
            boolean taken = !STATE.compareAndSet(this, PARKED, RUNNING);
            awaitedFirstBytes = taken;
            return taken;
        }
    }

    /**
     * Whether the connection awaited its client's first bytes here before any thread ran it: a client that has
     * spoken by the time its thread runs (see Http1ServerConnection.idleBound).
     */
    boolean awaitedFirstBytes() {
        return awaitedFirstBytes;
    }

    /** When a parked connection's idle timeout passes, on the read watchdog's clock. */
    long parkedUntil() {
        return parkedUntil;
    }

    // --- the poller's side and drain's ---

    /** Whether the connection is handed to the idle poller now. */
    boolean isParked() {
        return state == PARKED;
    }

    /** Whether the connection is not run by a thread of its own now (parked, or being taken off the selector). */
    boolean isOffThread() {
        return state != RUNNING;
    }

    /**
     * The poller takes a parked connection off the selector, to {@link #RESUMING} or {@link #CLOSING}; false when
     * another party took it first (or it is not parked), and then the caller must leave it alone.
     */
    boolean takeOff(int next) {
        return STATE.compareAndSet(this, PARKED, next);
    }

    /** The poller gives a {@link #RESUMING} connection back: a new thread runs it next. */
    void leavePoller() {
        state = RUNNING;
    }

    /** The connection is being ended off its thread. */
    void closing() {
        state = CLOSING;
    }

    /**
     * Drain: the poller ends the connection if it is parked (or about to be); {@code hard}, also closes its socket if
     * it was resumed meanwhile (see IdleConnections.evict).
     */
    void evict(boolean hard) {
        poller.evict(this, hard);
    }

    /** The channel a parked connection waits on (the JDK transport's poller). */
    SocketChannel channel() {
        return raw.getChannel();
    }

    /** The accepted socket a parked connection waits on. */
    Socket socket() {
        return raw;
    }

    /**
     * A parked HTTP/2 connection's end is announced with GOAWAY (RFC 9113 §6.8), on the poller's thread: a small write
     * into the empty send buffer of a non-blocking channel, so the poller never blocks; if it does not fit, the close
     * alone says it. {@code tlsSocket}: the connection's TLS socket, null for h2c.
     */
    void goAway(Http2Connection c, String reason, Socket tlsSocket) {
        try {
            byte[] frame = c.goAwayWhileParked(reason);
            if (tlsSocket == null) {
                poller.sendWhileParked(raw, frame);
            } else if (raw.getChannel() == null) {
                // On epoll there is no channel to make non-blocking: the record is made here and the idle poller
                // sends it with one send that never waits, as h2c's frame (the sweeper must never block on a client
                // that stopped reading).
                poller.sendWhileParked(raw, ServerTls.sealed((SSLSocket) tlsSocket, frame));
            } else {
                // One TLS record through the engine; on the non-blocking channel a write that would block throws
                // (EngineChannel) instead of waiting.
                tlsSocket.getOutputStream().write(frame);
            }
        } catch (IOException | RuntimeException e) {
            log.debug("connection {}: GOAWAY while parked not sent: {}", connection.id(), e.toString());
        }
    }

    /** What a new thread runs to resume the connection. */
    Runnable connection() {
        return connection;
    }

    boolean isDraining() {
        return connection.isDraining();
    }

    /** Ends a connection taken off the selector: its close and its events, once (see ClientConnection.endParked). */
    void end() {
        connection.endParked();
    }

    /** Closes the connection's socket (drain's timeout, on a connection resumed meanwhile). */
    void close() {
        connection.close();
    }

    @Override
    public String toString() {
        return connection.toString();
    }
}
