package io.loomgate.http2;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.SocketTimeoutException;
import java.util.Collection;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * How much one connection may send (RFC 9113 §6.9), either role: the connection's window and each open stream's
 * ({@link Stream}), as the peer's WINDOW_UPDATE frames and SETTINGS_INITIAL_WINDOW_SIZE move them, and the wait of a
 * thread with DATA to send until both are open. Guarded by the connection's lock (never held across I/O); every
 * writer waits on one condition, signalled whenever a window opens or a stream or the connection ends.
 */
final class SendWindow {
    /** One stream's window; guarded by the connection's lock. */
    static final class Stream {
        private int window;

        private Stream(int window) {
            this.window = window;
        }
    }

    /** What a waiting writer checks each time it looks at the windows; called under the lock. */
    interface Sender {
        /** Throws when the stream can no longer send; false when the rest is not wanted (dropped). */
        boolean maySend() throws IOException;

        /**
         * The windows are shut: something to do before waiting (the lock may be let go meanwhile); true to look at
         * the windows again at once.
         */
        default boolean beforeWait() throws IOException {
            return false;
        }
    }

    /** Returned by {@link #take} when {@link Sender#maySend} said the rest is not wanted. */
    static final int DROPPED = -1;

    private final ReentrantLock lock;
    private final Condition opened;
    // guarded by lock
    private int connection = Frames.DEFAULT_WINDOW;
    private int initial = Frames.DEFAULT_WINDOW;

    SendWindow(ReentrantLock lock) {
        this.lock = lock;
        this.opened = lock.newCondition();
    }

    /** Under the lock: a new stream's window, the peer's SETTINGS_INITIAL_WINDOW_SIZE. */
    Stream newStream() {
        return new Stream(initial);
    }

    /** Wakes every writer waiting for window: a window opened, or a stream or the connection ended. */
    void wake() {
        lock.lock();
        try {
            opened.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** WINDOW_UPDATE on the connection; over 2^31-1 is a connection error (§6.9.1). */
    void connectionUpdate(int increment) throws Http2Exception {
        lock.lock();
        try {
            if ((long) connection + increment > Frames.MAX_WINDOW) {
                throw Http2Exception.connection(Frames.FLOW_CONTROL_ERROR, "connection window over 2^31-1");
            }
            connection += increment;
            opened.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** WINDOW_UPDATE on stream {@code id}; over 2^31-1 is a stream error (§6.9.1). */
    void streamUpdate(Stream s, int id, int increment) throws Http2Exception {
        lock.lock();
        try {
            if ((long) s.window + increment > Frames.MAX_WINDOW) {
                throw Http2Exception.stream(id, Frames.FLOW_CONTROL_ERROR, "stream window over 2^31-1");
            }
            s.window += increment;
            opened.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /**
     * SETTINGS_INITIAL_WINDOW_SIZE: every open stream's window moves by the difference (§6.9.2); one moved over 2^31-1
     * is a connection error, and then none moves.
     */
    void initialChanged(int value, Collection<Stream> open) throws Http2Exception {
        lock.lock();
        try {
            int delta = value - initial;
            for (Stream s : open) {
                if ((long) s.window + delta > Frames.MAX_WINDOW) {
                    throw Http2Exception.connection(Frames.FLOW_CONTROL_ERROR,
                            "SETTINGS_INITIAL_WINDOW_SIZE makes a stream window over 2^31-1");
                }
            }
            for (Stream s : open) {
                s.window += delta;
            }
            initial = value;
            opened.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Under the lock: whether a DATA byte could go now on this stream. */
    boolean isOpen(Stream s) {
        return s.window > 0 && connection > 0;
    }

    /**
     * Under the lock (which the wait lets go of): waits until both windows are open, up to {@code deadlineNanos}, and
     * takes the bytes of the next DATA frame of stream {@code id} from both: at most {@code len} and
     * {@code maxFrame}. An empty DATA ({@code len} 0) takes nothing and does not wait. Returns how many were taken,
     * or {@link #DROPPED}.
     *
     * @throws SocketTimeoutException  the peer kept a window shut until the deadline
     * @throws InterruptedIOException  the thread was interrupted (its status is left cleared: see the callers)
     */
    int take(Stream s, int id, String peer, int len, int maxFrame, long deadlineNanos, Sender sender)
            throws IOException {
        while (true) {
            if (!sender.maySend()) {
                return DROPPED;
            }
            if (len == 0 || isOpen(s)) {
                break;
            }
            if (sender.beforeWait()) {
                continue;
            }
            long left = deadlineNanos - System.nanoTime();
            if (left <= 0) {
                throw new SocketTimeoutException("stream " + id + ": the " + peer
                        + " kept the flow-control window shut for the timeout");
            }
            try {
                opened.awaitNanos(left);
            } catch (InterruptedException e) {
                throw new InterruptedIOException("stream " + id + " interrupted");
            }
        }
        int n = Math.min(len, Math.min(maxFrame, Math.min(s.window, connection)));
        s.window -= n;
        connection -= n;
        return n;
    }
}
