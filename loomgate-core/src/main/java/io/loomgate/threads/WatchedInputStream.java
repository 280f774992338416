package io.loomgate.threads;

import java.io.IOException;
import java.io.InputStream;
import java.net.SocketTimeoutException;
import java.time.Duration;

/**
 * A socket's input whose reads have deadlines enforced from outside, by {@link ReadWatchdog}, instead of by
 * {@code SO_TIMEOUT}. A socket read with a timeout makes a virtual thread park with a timer, and arming and
 * cancelling that timer (plus {@code setSoTimeout} itself) cost about a fifth of the gateway's CPU per request; an
 * untimed park plus a watchdog that looks every {@value ReadWatchdog#TICK_MILLIS} ms costs almost nothing. When a
 * deadline passes, the watchdog runs the {@code cut} action (the owner passes {@code socket::shutdownInput}), the
 * blocked read returns, and this stream turns that into a {@link SocketTimeoutException}. Timeouts are therefore
 * enforced within one tick of their deadline.
 *
 * <p>Two kinds of limit, both set by the owning thread: a per-read timeout (each read must return within it) and a
 * phase deadline (every read until {@link #clearPhaseDeadline()} must return by one instant: a whole request head,
 * however its bytes are spaced). A cut is final: the input is shut down, the connection is done.
 *
 * <p>Lifecycle: watched from construction until {@link #close()}, which the owner must call when it closes the
 * connection (registering once, rather than around every read, keeps a hash-set update off every read).
 */
public final class WatchedInputStream extends InputStream {
    private final InputStream in;
    private final CutAction cut;
    private long readTimeoutNanos;
    private long phaseDeadline;
    private String phase;
    /** The deadline of the read in progress, 0 when none; read by the watchdog. */
    private volatile long deadline;
    private volatile String deadlineWhat;
    /** What timed out, once the watchdog cut the input. */
    private volatile String expired;

    /** What to do to a read that overran its deadline: usually {@code socket::shutdownInput}. */
    @FunctionalInterface
    public interface CutAction {
        void cut() throws IOException;
    }

    /** Registers with the watchdog for its whole life; {@link #close()} (the owner closing its socket) ends that. */
    public WatchedInputStream(InputStream in, CutAction cut) {
        this.in = in;
        this.cut = cut;
        ReadWatchdog.watch(this);
    }

    /** Stops watching. Does not close the underlying stream: the owner closes its socket. Idempotent. */
    @Override
    public void close() {
        ReadWatchdog.unwatch(this);
    }

    /** Each read from now on must return within this; zero for no limit. */
    public void setReadTimeout(Duration timeout) {
        this.readTimeoutNanos = timeout.toNanos();
    }

    /** Every read until cleared must return by this instant (System.nanoTime); {@code what} names it in errors. */
    public void setPhaseDeadline(long deadlineNanos, String what) {
        this.phaseDeadline = deadlineNanos;
        this.phase = what;
    }

    public void clearPhaseDeadline() {
        this.phase = null;
    }

    /** Whether the watchdog cut this input. */
    public boolean timedOut() {
        return expired != null;
    }

    @Override
    public int read() throws IOException {
        byte[] one = new byte[1];
        int n = read(one, 0, 1);
        return n < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        if (expired != null) {
            throw timeout(null);
        }
        long d;
        String what;
        if (phase != null) {
            d = phaseDeadline;
            what = phase;
            if (d - System.nanoTime() <= 0) {
                throw new SocketTimeoutException(what + " not complete in time");
            }
        } else if (readTimeoutNanos > 0) {
            d = System.nanoTime() + readTimeoutNanos;
            what = "read";
        } else {
            return in.read(b, off, len);
        }
        deadlineWhat = what;
        deadline = d;
        int n;
        try {
            n = in.read(b, off, len);
        } catch (IOException e) {
            if (expired != null) {
                throw timeout(e);
            }
            throw e;
        } finally {
            deadline = 0;
        }
        if (n < 0 && expired != null) {
            throw timeout(null);
        }
        return n;
    }

    @Override
    public int available() throws IOException {
        return in.available();
    }

    /** Called by the watchdog thread: cuts the input if the read in progress is past its deadline. */
    void cutIfOverdue(long now) {
        long d = deadline;
        if (d != 0 && now - d >= 0 && expired == null) {
            expired = deadlineWhat;
            try {
                cut.cut();
            } catch (IOException e) {
                // already closed: the blocked read has ended anyway
            }
        }
    }

    private SocketTimeoutException timeout(IOException cause) {
        SocketTimeoutException e = new SocketTimeoutException(expired + " timed out");
        if (cause != null) {
            e.initCause(cause);
        }
        return e;
    }
}
