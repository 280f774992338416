package io.loomgate.http2;

import io.loomgate.threads.ConnectionExecutors;
import io.loomgate.threads.Deadline;
import io.loomgate.threads.Watchdog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether an origin holds an upstream connection's reader inside one frame or header block while a response head is
 * overdue: a head trickled a byte at a time, or a header block a CONTINUATION at a time (no other frame may come
 * inside a block, RFC 9113 §6.10). Then no stream of the connection can get anything, and every stream the pool puts
 * on it waits out its route's timeout behind the trickle, for as long as the origin keeps it up (any byte contents
 * the keep-alive).
 *
 * <p>The reader marks when the frame (or block) it is in began ({@link #frameBegins}, {@link #frameEnds}). A head
 * that times out ({@link #headTimedOut}) inside a frame begun {@link #STALLED_FRAME_NANOS} or more ago retires the
 * connection at once: it takes no new streams and closes once those on it are done; the pool dials a fresh one.
 * Inside a younger frame, the connection takes no new streams while that frame lasts ({@link #holdsStreamsLocked}),
 * and a deadline on the shared {@link Watchdog}, at the frame's start plus the threshold, looks again: the same frame
 * still arriving retires the connection; a frame that ended in time leaves it in use, and the pool hears it has room
 * again. Until session 54 the look at the head's timeout was the only one: a trickle begun less than 1 s before it
 * left the connection in use, and the next requests on it got 504s (journal 2026-12-01-s53-ciflakes).
 *
 * <p>Threads: only the reader writes the frame's start (volatile: stream threads and the watchdog read it); the
 * overdue mark and the deadline are guarded by the connection's lock. The deadline's expiry runs on the watchdog's
 * thread, which must not block: it starts a short-lived thread (only on a connection where a head timed out inside a
 * frame) for what may (the GOAWAY's write when the retired connection closes, the pool's capacity callback).
 */
final class StalledFrameWatch {
    /** The connection's logger, as before this class: the log line operators know comes from there. */
    private static final Logger log = LoggerFactory.getLogger(Http2ClientConnection.class);
    /**
     * A frame (or a header block) arriving for longer than this while a response head is overdue: the origin is
     * trickling it, and every stream of the connection waits behind it.
     */
    static final long STALLED_FRAME_NANOS = 1_000_000_000L;

    private final Http2ClientConnection conn;
    /**
     * When the frame being read now (or the header block being gathered) began to arrive (System.nanoTime), 0 between
     * frames: written by the reader, read by a stream whose head is overdue, by {@link #holdsStreamsLocked} and by the
     * look at the deadline.
     */
    private volatile long frameBegunNanos;
    /** The start of the frame behind which a head went overdue, 0 when none; guarded by the connection's lock. */
    private long overdueBehind;
    /** The look again at {@code overdueBehind + STALLED_FRAME_NANOS}: made at the first, closed with the connection. */
    private Deadline lookAgain;

    StalledFrameWatch(Http2ClientConnection conn) {
        this.conn = conn;
    }

    /** On the reader, as a frame's first bytes came: it begins now, unless a header block goes on (its HEADERS did). */
    void frameBegins() {
        if (frameBegunNanos == 0) {
            frameBegunNanos = System.nanoTime();
        }
    }

    /** On the reader, after a frame that ended no header block's middle. */
    void frameEnds() {
        frameBegunNanos = 0;
    }

    /**
     * On a stream's thread, outside the connection's lock: its response head did not come in time. Between frames, the
     * origin is slow to answer, which holds no other stream. Inside a frame begun the threshold ago or earlier, the
     * connection is retired now; inside a younger one, it takes no new streams until that frame ends, and is retired
     * if the frame is still arriving at the threshold.
     */
    void headTimedOut() {
        long begun = frameBegunNanos;
        if (begun == 0) {
            return;
        }
        long age = System.nanoTime() - begun;
        if (age >= STALLED_FRAME_NANOS) {
            retire(begun);
            return;
        }
        conn.lock.lock();
        try {
            if (conn.deadLocked() || conn.goingAway) {
                return;
            }
            overdueBehind = begun;
            if (lookAgain == null) {
                lookAgain = Watchdog.shared().deadline(this::due);
            }
            lookAgain.armAt(begun + STALLED_FRAME_NANOS);
        } finally {
            conn.lock.unlock();
        }
        log.debug("h2 upstream {}: a response head is overdue {} ms into a frame still arriving: no new streams on"
                + " this connection while it lasts", conn.name, age / 1_000_000);
    }

    /**
     * Under the connection's lock: whether a head went overdue behind the frame the reader is still in, so a new
     * stream would wait behind it too. A mark left from a frame that has ended holds nothing.
     */
    boolean holdsStreamsLocked() {
        long behind = overdueBehind;
        return behind != 0 && behind == frameBegunNanos;
    }

    /** Under the connection's lock, as it dies: the watchdog need not look at it any more. */
    void endLocked() {
        if (lookAgain != null) {
            lookAgain.close();
            lookAgain = null;
        }
        overdueBehind = 0;
    }

    /** On the watchdog's thread, which must not block. */
    private void due() {
        ConnectionExecutors.startVirtual("h2-upstream-stall-" + conn.name, this::look);
    }

    /** The frame behind which a head went overdue is as old as the threshold, or has ended. */
    private void look() {
        long begun;
        boolean ended;
        conn.lock.lock();
        try {
            begun = overdueBehind;
            if (begun == 0) {
                return;
            }
            ended = frameBegunNanos != begun;
            if (ended) {
                overdueBehind = 0;
            }
        } finally {
            conn.lock.unlock();
        }
        if (ended) {
            conn.onCapacity.run(); // in use again: a request waiting for a stream may have one here
        } else if (System.nanoTime() - begun >= STALLED_FRAME_NANOS) {
            retire(begun);
        } // else a later head's timeout marked a younger frame and moved the deadline: it looks again then
    }

    /** Takes the connection out of use if the frame that began at {@code begun} is still arriving. */
    private void retire(long begun) {
        if (frameBegunNanos != begun || !conn.isUsable()) {
            return;
        }
        log.warn("h2 upstream {}: a response head is overdue and a frame has been arriving for {} ms: the origin"
                + " trickles it; no new streams on this connection", conn.name,
                (System.nanoTime() - begun) / 1_000_000);
        conn.goAway();
    }

    /** When the frame being read began (System.nanoTime), 0 between frames: for tests. */
    long frameBegunNanos() {
        return frameBegunNanos;
    }

    /** Whether a head's timeout marked a frame that has not been looked at again yet: for tests. */
    boolean marked() {
        conn.lock.lock();
        try {
            return overdueBehind != 0;
        } finally {
            conn.lock.unlock();
        }
    }
}
