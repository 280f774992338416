package io.loomgate.threads;

import java.io.IOException;
import java.io.InputStream;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;
import java.time.Duration;

/**
 * A socket's input whose reads have deadlines enforced from outside, by a {@link Watchdog} (the shared one unless
 * another is given), instead of by {@code SO_TIMEOUT} (see {@link Watchdog} for why). When a read overruns, the
 * watchdog runs the {@code cut} action (the owner passes {@code socket::shutdownInput}), the blocked read returns, and
 * this stream turns that into a {@link SocketTimeoutException}. Timeouts are therefore enforced within one tick of
 * their deadline.
 *
 * <p>Two kinds of limit, both set by the owning thread: a per-read timeout (each read must return within it) and a
 * phase deadline ({@link #setPhaseTimeout}: every read until {@link #clearPhaseDeadline()} must return by one
 * instant: a whole request head, however its bytes are spaced). A cut is final: the input is shut down, the connection is done.
 *
 * <p>Lifecycle: watched from construction until {@link #close()}, which the owner must call when it closes the
 * connection (registering once, rather than around every read, keeps a set update off every read).
 *
 * <p>Direct reads: over a socket that is a channel (a plain one; TLS sockets have none), {@link #read(ByteBuffer)}
 * reads straight into a direct buffer under the same deadlines, so bulk bodies skip the JDK's copy through its
 * temporary direct buffer into a heap array ({@link #directReader()}, docs/performance.md, W4).
 */
public final class WatchedInputStream extends BulkInputStream implements ReadableByteChannel {
    private final InputStream in;
    /** The socket's channel for direct reads, or null (TLS, a socket without a channel). */
    private final ReadableByteChannel channel;
    private final Deadline deadline;
    private final NanoClock clock;
    private long readTimeoutNanos;
    private long phaseDeadline;
    private String phase;
    /** What timed out, once a read found its deadline expired; owner thread only. */
    private String expired;
    /** Between {@link #beginOpenWait()} and {@link #endOpenWait()}: reads arm nothing, another thread may; owner only. */
    private boolean openWait;

    /** What to do to a read that overran its deadline: usually {@code socket::shutdownInput}. */
    @FunctionalInterface
    public interface CutAction {
        void cut() throws IOException;
    }

    /** Watched by the shared watchdog for its whole life; {@link #close()} (the owner closing its socket) ends that. */
    public WatchedInputStream(InputStream in, CutAction cut) {
        this(in, cut, Watchdog.shared());
    }

    /** Watched by this watchdog, on its clock. */
    public WatchedInputStream(InputStream in, CutAction cut, Watchdog watchdog) {
        this(in, null, cut, watchdog);
    }

    /**
     * Watched by this watchdog, with {@code channel} (the socket's own, {@code socket.getChannel()}; null for none)
     * for {@link #read(ByteBuffer)}. The cut must end a blocked channel read too: shutting the input down does.
     */
    public WatchedInputStream(InputStream in, ReadableByteChannel channel, CutAction cut, Watchdog watchdog) {
        this.in = in;
        this.channel = channel;
        this.deadline = watchdog.deadline(() -> {
            try {
                cut.cut();
            } catch (IOException e) {
                // already closed: the blocked read has ended anyway
            }
        });
        this.clock = watchdog.clock();
    }

    /** Stops watching. Does not close the underlying stream: the owner closes its socket. Idempotent. */
    @Override
    public void close() {
        deadline.close();
    }

    /** Each read from now on must return within this; zero for no limit. */
    public void setReadTimeout(Duration timeout) {
        this.readTimeoutNanos = timeout.toNanos();
    }

    /** As {@link #setReadTimeout(Duration)}, in nanoseconds: for a bound computed per wait, without an object. */
    public void setReadTimeoutNanos(long nanos) {
        this.readTimeoutNanos = nanos;
    }

    /**
     * Every read until {@link #clearPhaseDeadline()} must return within {@code nanos} from now (on the watchdog's
     * clock): one deadline for the whole phase; {@code what} names it in errors.
     */
    public void setPhaseTimeout(long nanos, String what) {
        this.phaseDeadline = clock.nanoTime() + nanos;
        this.phase = what;
    }

    /** Like {@link #setPhaseTimeout}, with the end given as an instant of the watchdog's clock (System.nanoTime). */
    public void setPhaseDeadline(long deadlineNanos, String what) {
        this.phaseDeadline = deadlineNanos;
        this.phase = what;
    }

    public void clearPhaseDeadline() {
        this.phase = null;
    }

    /**
     * The reads from now until {@link #endOpenWait()} carry no bound of their own (neither the read timeout nor a
     * phase): another thread may bound them with {@link #boundOpenWait}, and a cut then ends them as a timeout. For
     * an HTTP/2 connection's wait for its client's next frame while a stream is answered: no timer and no deadline
     * per frame, and the handler that ends the last stream starts the idle time. Owner only, between reads.
     */
    public void beginOpenWait() {
        openWait = true;
        deadline.open();
    }

    /**
     * Any thread: the open wait's reads must return within {@code nanos} from now; false, bounding nothing, when no
     * wait is open (it ended, or was bounded already).
     */
    public boolean boundOpenWait(long nanos) {
        return deadline.armIfOpen(clock.nanoTime() + nanos);
    }

    /**
     * Ends the open wait: a bound another thread set is cleared, and if it expired meanwhile the next read reports
     * the timeout (bytes that came as it passed are still delivered). Returns the nanoseconds the bound had left (0
     * when it passed, whether or not the watchdog had cut), or {@link Deadline#UNBOUNDED} when there was none: for a
     * wait that ended softly (SO_TIMEOUT) and goes on, which must keep that end. Owner only; without an open wait, a
     * no-op answering {@link Deadline#UNBOUNDED}.
     */
    public long endOpenWait() {
        if (!openWait) {
            return Deadline.UNBOUNDED;
        }
        openWait = false;
        long left = deadline.endOpen();
        if (left == Deadline.CUT) {
            expired = "read";
            return 0;
        }
        return left;
    }

    /**
     * Whether a read of this stream was cut by the watchdog (its deadline passed): the input is gone for good, and
     * every read from now on reports the timeout. Tells that apart from a read's own soft end (SO_TIMEOUT), after
     * which the socket reads on. Owner only.
     */
    public boolean cut() {
        return expired != null;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        return watchedRead(b, off, len, null);
    }

    /** This stream as a channel for direct reads, or null when its socket has no channel. */
    public ReadableByteChannel directReader() {
        return channel == null ? null : this;
    }

    /**
     * Reads from the socket's channel into {@code dst} (a direct buffer: no copy on the way) under the same
     * deadlines as {@link #read(byte[], int, int)}. Only when {@link #directReader()} is not null.
     */
    @Override
    public int read(ByteBuffer dst) throws IOException {
        if (channel == null) {
            throw new UnsupportedOperationException("no channel under this socket's stream");
        }
        return watchedRead(null, 0, 0, dst);
    }

    /**
     * One read of the socket under the deadline that applies: into {@code dst} through the channel when it is given,
     * else into {@code b} through the stream. (Arguments rather than a lambda: this is every read of a connection,
     * and a capturing lambda would be an allocation per read where the JIT does not remove it.)
     */
    private int watchedRead(byte[] b, int off, int len, ByteBuffer dst) throws IOException {
        if (openWait) {
            return openRead(b, off, len, dst);
        }
        if (!arm()) {
            return dst != null ? channel.read(dst) : in.read(b, off, len);
        }
        int n = -1;
        IOException failure = null;
        try {
            n = dst != null ? channel.read(dst) : in.read(b, off, len);
        } catch (IOException e) {
            failure = e;
        } catch (RuntimeException | Error e) {
            if (deadline.disarm()) {
                expired = armedFor();
            }
            throw e;
        }
        return disarm(n, failure);
    }

    /**
     * A read of an open wait: not armed here; when it fails or ends after another thread's bound expired (the cut),
     * that is the timeout. The bound stays armed across the wait's reads until {@link #endOpenWait()}.
     */
    private int openRead(byte[] b, int off, int len, ByteBuffer dst) throws IOException {
        if (expired != null) {
            throw timeout(null);
        }
        int n;
        try {
            n = dst != null ? channel.read(dst) : in.read(b, off, len);
        } catch (IOException e) {
            if (deadline.expired()) {
                expired = "read";
                throw timeout(e);
            }
            throw e;
        }
        if (n < 0 && deadline.expired()) {
            expired = "read";
            throw timeout(null);
        }
        return n;
    }

    /** Arms the deadline for a read; false when no limit applies. Throws when the limit has already passed. */
    private boolean arm() throws IOException {
        if (expired != null) {
            throw timeout(null);
        }
        long d;
        if (phase != null) {
            d = phaseDeadline;
            if (d - clock.nanoTime() <= 0) {
                throw new SocketTimeoutException(phase + " not complete in time");
            }
        } else if (readTimeoutNanos > 0) {
            d = clock.nanoTime() + readTimeoutNanos;
        } else {
            return false;
        }
        deadline.armAt(d);
        return true;
    }

    /** What the armed read was limited by: the phase, else the per-read timeout (neither changes during a read). */
    private String armedFor() {
        return phase != null ? phase : "read";
    }

    /** Ends an armed read: its result, or the timeout when the watchdog cut it. */
    private int disarm(int n, IOException failure) throws IOException {
        if (deadline.disarm()) {
            expired = armedFor();
        }
        // Bytes that arrived as the deadline passed are still delivered; the next read reports the timeout.
        if (expired != null && (failure != null || n < 0)) {
            throw timeout(failure);
        }
        if (failure != null) {
            throw failure;
        }
        return n;
    }

    @Override
    public int available() throws IOException {
        return in.available();
    }

    /** Whether the channel is open (as a channel); true without one. */
    @Override
    public boolean isOpen() {
        return channel == null || channel.isOpen();
    }

    private SocketTimeoutException timeout(IOException cause) {
        SocketTimeoutException e = new SocketTimeoutException(expired + " timed out");
        if (cause != null) {
            e.initCause(cause);
        }
        return e;
    }
}
