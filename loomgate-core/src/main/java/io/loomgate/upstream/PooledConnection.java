package io.loomgate.upstream;

import io.loomgate.http.ConnectionAttributes;
import io.loomgate.http1.HttpInput;
import io.loomgate.http1.HttpOutput;
import io.loomgate.threads.QuietCheck;
import io.loomgate.threads.WatchedInputStream;
import io.loomgate.tls.ClientTls;
import java.io.IOException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLSocket;

/**
 * A connection to one endpoint, lent by its pool to one exchange at a time.
 *
 * <p>Lifecycle: {@code IN_USE} (just dialled, or taken from the idle list) → {@code IDLE} (released clean) →
 * {@code IN_USE} … → {@code CLOSED} (discarded, evicted or pool shut down). The pool checks the state on every
 * transition under its lock and names it when a transition is illegal (a double release, a release after discard).
 * The state fields are only touched under the owning pool's lock; the lock's hand-off also publishes them to the
 * thread that acquires the connection. The socket and codec objects are used by one exchange at a time.
 */
public final class PooledConnection implements ConnectionLease {

    enum State { IDLE, IN_USE, CLOSED }

    private static final int HEALTH_CHECK_READ_MILLIS = 1;
    /** Idle longer than this, a plain connection is probed (a non-blocking read) before it is lent again. */
    static final long PROBE_AFTER_IDLE_NANOS = TimeUnit.SECONDS.toNanos(1);
    /** Idle longer than this, a TLS connection is probed (a 1 ms timed read) before it is lent again. */
    static final long TLS_PROBE_AFTER_IDLE_NANOS = TimeUnit.SECONDS.toNanos(10);

    private final UpstreamPool pool;
    private final long id;
    private final ConnectionAttributes attributes = new ConnectionAttributes();
    private final Socket socket;
    /** The plain socket under {@link #socket} when that is TLS; the same socket otherwise. */
    private final Socket raw;
    private final HttpInput input;
    private final HttpOutput output;
    private final WatchedInputStream watched;

    // Guarded by pool's lock.
    private State state = State.IN_USE;
    private long idleSinceNanos;
    private boolean reused;
    /**
     * Set by the owner before its release (published by the pool's lock), taken by the next {@link #isHealthy}: the
     * last answer had no body, so bytes that follow it are an origin's mistake, looked for however short the idle.
     */
    private boolean probeNext;

    PooledConnection(UpstreamPool pool, long id, Socket raw, Socket socket, WatchedInputStream watched,
                     HttpInput input, HttpOutput output) {
        this.pool = pool;
        this.watched = watched;
        this.id = id;
        this.raw = raw;
        this.socket = socket;
        this.input = input;
        this.output = output;
    }

    @Override
    public ConnectionAttributes attributes() {
        return attributes;
    }

    public Endpoint endpoint() {
        return pool.endpoint();
    }

    public Socket socket() {
        return socket;
    }

    public HttpInput input() {
        return input;
    }

    /** Whether this connection's TLS tells an origin's close_notify from a bare FIN ({@link ClientTls}). */
    public boolean tellsCloseNotify() {
        return ClientTls.tellsCloseNotify(socket);
    }

    /**
     * Whether the origin's TLS stream, which has just read as ended, ended without close_notify: a truncation, not an
     * end ({@link ClientTls#endedWithoutCloseNotify}); false for a plain connection.
     */
    public boolean endedWithoutCloseNotify() {
        return ClientTls.endedWithoutCloseNotify(socket);
    }

    public HttpOutput output() {
        return output;
    }

    /** Whether this connection served an earlier exchange (so a failure on it may be a stale keep-alive). */
    @Override
    public boolean reused() {
        return reused;
    }

    /**
     * Bounds every following read on this connection (the proxy's response timeout); {@link Duration#ZERO} waits
     * forever. Enforced by the read watchdog, not by {@code SO_TIMEOUT}: a timed socket read makes a virtual thread
     * arm and cancel a timer on every read (see {@link WatchedInputStream}). A read that overruns ends with a
     * {@link java.net.SocketTimeoutException} and leaves the connection unusable.
     */
    public void setReadTimeout(Duration timeout) {
        if (timeout.isNegative()) {
            throw new IllegalArgumentException("read timeout must not be negative, not " + timeout);
        }
        watched.setReadTimeout(timeout);
    }

    /**
     * Every following read must return by this instant (System.nanoTime), however the bytes are spaced, until
     * {@link #clearDeadline()}: a response head, interim responses included, within the route's timeout.
     */
    public void setDeadline(long deadlineNanos, String what) {
        watched.setPhaseDeadline(deadlineNanos, what);
    }

    /** Back to the per-read timeout. */
    public void clearDeadline() {
        watched.clearPhaseDeadline();
    }

    /**
     * Whether this idle connection, idle for {@code idleForNanos}, can carry a new request (OkHttp's
     * {@code isHealthy}). The cheap check (socket open both ways, no unread bytes) always runs. After a long idle,
     * long enough for the origin to have given up on it, a read as well: any byte or end of stream then means the
     * origin closed the connection or is talking out of turn, and either way it is unusable. Called by the pool on
     * acquire, outside its lock.
     *
     * <p>A plain connection is probed with one non-blocking read of its channel (or, on the epoll transport, of its
     * socket: {@link QuietCheck}) after a second of idleness: no wait, no timer. A TLS connection has no channel to
     * read without blocking (its bytes belong to the TLS layer), so it gets a 1 ms timed read, and only after
     * {@link #TLS_PROBE_AFTER_IDLE_NANOS} (OkHttp's figure): the timer that ends a timed read on a virtual thread is a task submitted from outside the carrier, which runs
     * only once the carrier's own queue is empty. Under saturation that took seconds (docs/performance.md,
     * "Session 25"), with the request waiting behind it. After an answer without a body ({@link #probeOnNextLease})
     * both kinds are looked at however short the idle: a plain one probed, a TLS one asked for unread bytes.
     */
    boolean isHealthy(long idleForNanos) {
        if (socket.isClosed() || socket.isInputShutdown() || socket.isOutputShutdown() || input.buffered() > 0) {
            return false;
        }
        boolean afterBodiless = probeNext;
        probeNext = false;
        boolean probe = idleForNanos > PROBE_AFTER_IDLE_NANOS || afterBodiless;
        SocketChannel channel = socket instanceof SSLSocket ? null : socket.getChannel();
        if (channel != null) {
            return !probe || quietNow(channel);
        }
        if (socket instanceof QuietCheck plain) { // the epoll transport's plain sockets: the same probe, no channel
            return !probe || plain.quietNow();
        }
        // TLS: after an answer without a body, bytes already there are looked for without a read or a wait (the TLS
        // layer's plaintext and read-ahead, the kernel's queue); a byte still on its way is found by the idle probe.
        if (afterBodiless && ClientTls.hasUnreadBytes(socket, raw)) {
            return false;
        }
        if (idleForNanos <= TLS_PROBE_AFTER_IDLE_NANOS) {
            return true;
        }
        try {
            int previousTimeout = socket.getSoTimeout();
            socket.setSoTimeout(HEALTH_CHECK_READ_MILLIS);
            try {
                input.awaitData();
                return false;
            } catch (SocketTimeoutException expected) {
                return true;
            } finally {
                socket.setSoTimeout(previousTimeout);
            }
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * One non-blocking read: true when nothing is there (the origin neither wrote nor closed). A byte read here is
     * lost, which does not matter: a connection with one is discarded.
     */
    private static boolean quietNow(SocketChannel channel) {
        try {
            channel.configureBlocking(false);
            try {
                return channel.read(ByteBuffer.allocate(1)) == 0;
            } finally {
                channel.configureBlocking(true);
            }
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * The next {@link #isHealthy} looks for bytes however short the idle (after an answer without a body: see the
     * proxy's Http1Codec.finish): a plain connection with its non-blocking probe, a TLS one by asking its layers and
     * the kernel what waits unread ({@link ClientTls#hasUnreadBytes}; its probe proper is a timed read, kept for long
     * idles).
     */
    public void probeOnNextLease() {
        probeNext = true;
    }

    /** What {@link #awaitData} saw within its wait. */
    public enum Readiness {
        /** At least one byte is ready to read. */
        DATA,
        /** The origin closed the connection (end of stream, or reset). */
        CLOSED,
        /** Nothing arrived within the wait: the connection is as it was. */
        QUIET
    }

    /**
     * Waits at most {@code millis} for the origin's next byte without consuming it; bytes already buffered answer at
     * once. A timed socket read (SO_TIMEOUT), as in {@link #isHealthy}'s TLS probe: meant for rare paths, never every
     * request.
     */
    public Readiness awaitData(int millis) {
        if (input.buffered() > 0) {
            return Readiness.DATA;
        }
        try {
            int previousTimeout = socket.getSoTimeout();
            socket.setSoTimeout(Math.max(1, millis));
            try {
                return input.awaitData() ? Readiness.DATA : Readiness.CLOSED;
            } catch (SocketTimeoutException quiet) {
                return Readiness.QUIET;
            } finally {
                socket.setSoTimeout(previousTimeout);
            }
        } catch (IOException e) {
            return Readiness.CLOSED;
        }
    }

    UpstreamPool pool() {
        return pool;
    }

    State state() {
        return state;
    }

    void state(State state) {
        this.state = state;
    }

    long idleSinceNanos() {
        return idleSinceNanos;
    }

    void idleSinceNanos(long nanos) {
        this.idleSinceNanos = nanos;
    }

    void markReused() {
        this.reused = true;
    }

    /** Closes the socket; never throws, because the connection is being thrown away anyway. */
    void closeQuietly() {
        watched.close(); // stops the read watchdog looking at this connection
        try {
            socket.close();
        } catch (IOException ignored) {
            // Nothing to do: the connection is gone either way.
        }
    }

    @Override
    public String toString() {
        return "connection #" + id + " to " + pool.endpoint();
    }
}
