package io.loomgate.http2;

import java.io.IOException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether an origin can have processed a stream of an upstream connection, as its GOAWAYs say (RFC 9113 §6.8): a
 * stream above the lowest last-stream-id read was never processed, so it is <em>refused</em> and any method may go
 * again on another connection; one at or below it may have been processed. The verdict is the reader's to give, yet a
 * request thread's write can fail first: an origin's idle close (GOAWAY, then FIN) whose GOAWAY still sits unread in
 * our socket, or an origin's RST for our write on its closed socket. Such a stream waits here, boundedly, for the
 * reader to read a GOAWAY or end, then gets its verdict (journal 2026-12-01-s55-h2goaway: interleavings 2 to 4).
 *
 * <p>A class of its own (session 56) so that {@link Http2ClientConnection} keeps to its reservations, ids and stream
 * map: this holds the GOAWAY's last stream, whether the reader ended and the condition a failed write waits on.
 *
 * <p>Threads: every field is guarded by the connection's lock; the wait is on a condition of that lock, never over
 * I/O. The reader writes ({@link #goAwayReadLocked}, {@link #readerEnded}); request threads ask.
 */
final class GoAwayVerdict {
    /** The connection's logger, as before this class: the log line operators know comes from there. */
    private static final Logger log = LoggerFactory.getLogger(Http2ClientConnection.class);
    /** The most a stream whose write failed waits for the reader's GOAWAY or end (a reader still unscheduled). */
    static final long VERDICT_NANOS = TimeUnit.SECONDS.toNanos(2);
    private static final int NONE = Integer.MAX_VALUE;

    private final Http2ClientConnection conn;
    /** Signalled when a GOAWAY is read or the reader ends: what a stream whose write failed waits for. */
    private final Condition heard;
    /** The lowest last-stream-id of the origin's GOAWAYs, or {@link #NONE} while none came. */
    private int goAwayLast = NONE;
    /** Whether the reader has ended: it will read no GOAWAY any more. */
    private boolean readerEnded;

    GoAwayVerdict(Http2ClientConnection conn) {
        this.conn = conn;
        this.heard = conn.lock.newCondition();
    }

    /** Under the lock: the refusal of stream {@code id} when the origin's GOAWAY names a lower last stream, or null. */
    Http2StreamException refusalLocked(int id) {
        return id > goAwayLast ? new Http2StreamException("origin sent GOAWAY (last stream " + goAwayLast
                + ") before processing stream " + id, Frames.REFUSED_STREAM, true) : null;
    }

    /** Under the lock, on the reader: the origin's GOAWAY names {@code last}; a stream whose write failed hears it. */
    void goAwayReadLocked(int last) {
        goAwayLast = Math.min(goAwayLast, last);
        heard.signalAll();
    }

    /** On the reader, as it ends: no GOAWAY will come any more; what waits hears it. */
    void readerEnded() {
        conn.lock.lock();
        try {
            readerEnded = true;
            heard.signalAll();
        } finally {
            conn.lock.unlock();
        }
    }

    /**
     * A write of stream {@code id}'s frames failed: this waits, at most {@link #VERDICT_NANOS}, until the reader has
     * read a GOAWAY or ended, then returns the refusal (the stream failed with it) when the GOAWAY's last stream is
     * below {@code id}, else {@code e}: the stream may have been processed.
     */
    IOException afterWriteFailed(int id, IOException e) {
        conn.lock.lock();
        try {
            long left = VERDICT_NANOS;
            while (!readerEnded && goAwayLast == NONE && left > 0) {
                try {
                    left = heard.awaitNanos(left);
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
            Http2StreamException refused = refusalLocked(id);
            if (refused == null) {
                return e;
            }
            Http2ClientStream s = conn.streams.get(id);
            if (s != null) {
                conn.removeLocked(s);
                s.failLocked(refused);
            }
            log.debug("h2 upstream {}: write of stream {} failed ({}) after the origin's GOAWAY: refused", conn.name,
                    id, e.toString());
            return refused;
        } finally {
            conn.lock.unlock();
        }
    }
}
