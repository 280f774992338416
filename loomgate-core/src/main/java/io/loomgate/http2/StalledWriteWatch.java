package io.loomgate.http2;

import io.loomgate.threads.ConnectionExecutors;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether an origin has stopped reading an upstream connection while a response head is overdue: a socket write to it
 * blocked (its TCP window shut, not its HTTP/2 flow-control windows, which are waited on apart from the socket). The
 * socket has no write deadline of its own, and every frame of every stream waits behind that write: a stream's
 * RST_STREAM, the next request's HEADERS, a PING. Until session 57 a stream's cancel at its route's timeout waited
 * behind such a write for as long as the origin read nothing, and the client's 504 with it (journal
 * 2026-12-02-s57-hostile8). The sibling of {@link StalledFrameWatch}, which watches the reading side.
 *
 * <p>The connection's {@link FrameWriter} keeps when its socket write in progress began; a write blocked
 * {@link #STALLED_WRITE_NANOS} or more keeps new streams off the connection ({@link #stalled}), and a head that times
 * out behind it ends the connection ({@link #headTimedOut}) at once, or when the write gets that old.
 */
final class StalledWriteWatch {
    /** The connection's logger, as for {@link StalledFrameWatch}: the log line operators know comes from there. */
    private static final Logger log = LoggerFactory.getLogger(Http2ClientConnection.class);
    /** A socket write blocked this long while a head is overdue: the origin reads nothing. */
    static final long STALLED_WRITE_NANOS = StalledFrameWatch.STALLED_FRAME_NANOS;

    private final Http2ClientConnection conn;
    private final FrameWriter writer;

    StalledWriteWatch(Http2ClientConnection conn, FrameWriter writer) {
        this.conn = conn;
        this.writer = writer;
    }

    /**
     * Whether the socket write in progress has been blocked {@link #STALLED_WRITE_NANOS} or more: a new stream's
     * HEADERS would wait behind it, past its route's timeout, so the connection takes none.
     */
    boolean stalled() {
        long begun = writer.writeBegunNanos();
        return begun != 0 && System.nanoTime() - begun >= STALLED_WRITE_NANOS;
    }

    /**
     * A stream's response head did not come in time: if a socket write is in progress, the connection ends once that
     * write has been blocked {@link #STALLED_WRITE_NANOS} (now, or on a short-lived thread when it gets that old,
     * unless it ended meanwhile).
     */
    void headTimedOut() {
        long begun = writer.writeBegunNanos();
        if (begun == 0) {
            return;
        }
        long left = begun + STALLED_WRITE_NANOS - System.nanoTime();
        if (left <= 0) {
            end(begun);
            return;
        }
        ConnectionExecutors.startVirtual("h2-upstream-write-stall-" + conn.name, () -> {
            try {
                Thread.sleep(Duration.ofNanos(left));
            } catch (InterruptedException e) {
                return;
            }
            end(begun);
        });
    }

    /**
     * The write that began at {@code begun} is still blocked, at least {@link #STALLED_WRITE_NANOS} in: the connection
     * ends now (the socket closed, which fails the blocked write and frees every thread waiting to write behind it;
     * no GOAWAY, which could not be written either).
     */
    private void end(long begun) {
        if (writer.writeBegunNanos() != begun || conn.isDead()) {
            return;
        }
        long ms = (System.nanoTime() - begun) / 1_000_000;
        log.warn("h2 upstream {}: a response head is overdue and a write to the origin has been blocked for {} ms:"
                + " the origin reads nothing; the connection ends", conn.name, ms);
        conn.die("closed: the origin read nothing for " + ms + " ms (a write blocked)");
    }
}
