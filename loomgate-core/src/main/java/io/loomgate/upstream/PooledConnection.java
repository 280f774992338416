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
    /**
     * Idle longer than this, an epoll socket is read (a non-blocking read) before it is lent again whatever its
     * readiness flags say: an edge may still be on its way to the poller.
     */
    static final long PROBE_AFTER_IDLE_NANOS = TimeUnit.SECONDS.toNanos(1);
    /** Idle longer than this, TLS over a plain socket without a channel is probed (a 1 ms timed read) when lent. */
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
    /**
     * The byte {@link #quietNow} reads into, made at the first probe and kept: a new buffer for each lease was 68 B a
     * request at W8 (session 60). Only the thread that has the connection (its lease check) uses it.
     */
    private ByteBuffer probeByte;

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

    /** The plain socket under {@link #socket()} when that is TLS; the same socket otherwise. */
    Socket raw() {
        return raw;
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
     * {@code isHealthy}): the origin has neither closed it (a FIN, an RST, a TLS close_notify) nor sent anything out
     * of turn since its last answer. Asked on every lease, however short the idle (on the JDK's sockets that costs a
     * system call a lease: a lease that skipped it after a short idle lent a connection with an origin's unasked-for
     * answer waiting, and each request after it got the answer to the one before, another client's included, for as
     * long as leases came that close together; journal 2026-12-01-s56-hostile7), without a blocking read and
     * without a timer, because an origin's keep-alive timeout (a Node or Go origin's few seconds, an HAProxy's fraction of one) closes pooled
     * connections whenever it likes, and a request sent on one that is closed fails after its bytes went out: a GET
     * may go again on a new connection, a POST may not (the origin might have read it), so it would be a 502.
     * Called by the pool on acquire, outside its lock.
     *
     * <ul>
     *   <li>Plain, the JDK's sockets: one non-blocking read of the channel (a read that finds nothing: one system
     *   call).</li>
     *   <li>The epoll transport's sockets, plain or under TLS: the poller's flags first ({@link QuietCheck#mayHaveNews},
     *   no system call); only when they say something came, one non-blocking read of the kernel. As safe as a read
     *   on every lease: the poller sets the flag on every edge (a byte, a FIN, an RST), even when no thread waits,
     *   and only a read clears it; what the flags can miss is an edge still on its way to the poller (bytes that
     *   arrived a moment before the lease: the same race as bytes that arrive a moment after it, which no lease
     *   check sees). After an answer without a body ({@link #probeOnNextLease}) or a long idle the read is made
     *   whatever the flags say.</li>
     *   <li>TLS on the JDK's sockets, JSSE and Conscrypt alike: bytes the TLS layer holds above the kernel
     *   ({@link ClientTls#hasBufferedBytes}: decrypted, or read ahead and not yet decrypted; no system call), then
     *   one non-blocking read of the plain socket's channel (JSSE's {@code RecordBufferedSocket} is a channel's since
     *   session 55), which sees a close_notify or stray bytes in the kernel, a bare FIN and an RST. Only a plain
     *   socket without a channel (none the gateway dials; a test's) is left to {@link ClientTls#hasUnreadBytes}
     *   ({@code FIONREAD}) and a 1 ms timed read after {@link #TLS_PROBE_AFTER_IDLE_NANOS} (a timed read arms a
     *   timer on a virtual thread, which under saturation took seconds to fire: docs/performance.md, "Session
     *   25").</li>
     * </ul>
     * A byte read by a probe is lost, which does not matter: a connection with one is discarded. What no lease check
     * sees is a close still on its way; that exchange fails as before (an idempotent request without a body goes
     * again on a new connection, {@code FailureClassifier.mayRetry}).
     */
    boolean isHealthy(long idleForNanos) {
        if (socket.isClosed() || socket.isInputShutdown() || socket.isOutputShutdown() || input.buffered() > 0) {
            return false;
        }
        boolean afterBodiless = probeNext;
        probeNext = false;
        boolean surely = afterBodiless || idleForNanos > PROBE_AFTER_IDLE_NANOS; // read the kernel whatever flags say
        if (raw instanceof QuietCheck q) { // the epoll transport's sockets, plain or under TLS
            if (socket != raw && afterBodiless && ClientTls.hasUnreadBytes(socket, raw)) {
                return false; // an answer's stray bytes, read ahead with it: in a buffer, not the kernel
            }
            if (!surely && !q.mayHaveNews()) {
                return true;
            }
            return (socket == raw || !ClientTls.hasUnreadBytes(socket, raw)) && q.quietNow();
        }
        if (socket == raw) {
            SocketChannel channel = socket.getChannel();
            return channel == null || quietNow(channel);
        }
        // TLS on the JDK's sockets
        SocketChannel channel = raw.getChannel();
        if (channel != null) { // JSSE over RecordBufferedSocket, Conscrypt's engine over a channel's socket
            return !ClientTls.hasBufferedBytes(socket, raw) && quietNow(channel);
        }
        if (ClientTls.hasUnreadBytes(socket, raw)) {
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
    private boolean quietNow(SocketChannel channel) {
        if (probeByte == null) {
            probeByte = ByteBuffer.allocate(1);
        }
        try {
            channel.configureBlocking(false);
            try {
                return channel.read(probeByte.clear()) == 0;
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

    /**
     * Ends the connection from another thread at once: closes the plain socket, under TLS too. Closing a TLS socket
     * writes close_notify first, which waits for a write in progress to end; a write blocked on an origin that stopped
     * reading ends only when the origin reads again (session 57: a request's 504 held 20 s, the origin's pause). The
     * plain socket's close fails that write, and the owner's next read or write. Never throws.
     */
    public void abort() {
        try {
            raw.close();
        } catch (IOException ignored) {
            // gone either way
        }
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
