package io.loomgate.http2;

import io.loomgate.threads.ConnectionExecutors;
import io.loomgate.threads.Deadline;
import io.loomgate.threads.Watchdog;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A server connection's early-answered streams whose rest its reader throws away: a stream answered before its
 * request body ended, whose handler returned ({@link Http2Stream#deferRest}). From then on the reader drops the rest
 * of its DATA as it arrives and gives the window back, within the bounds {@link Http2Stream#startDiscardLocked} sets
 * (10 s in all, the read timeout if shorter; 16 MiB); a stream past a bound is ended with RST_STREAM NO_ERROR by the
 * connection. The reader checks the bounds when DATA comes ({@link ServerFrames#data}); a {@link Watchdog} deadline,
 * made at the first discard and closed with the last, ends the streams whose client has stopped sending.
 *
 * <p>Guarded by the connection's lock, as {@link ResetStreams} is: a stream's thread starts a discard, the reader and
 * the connection's removals end one, and the watchdog's short-lived thread ends the overdue. The discarded streams
 * are those of the connection's stream table that say so ({@link Http2Stream#discardingLocked}); this class keeps
 * only their count and the timer. The window credit and the RST_STREAMs are written after the lock is released.
 */
final class EarlyAnswerDiscards {
    private static final Logger log = LoggerFactory.getLogger(EarlyAnswerDiscards.class);

    private final Http2Connection conn;
    private final long id;
    /** The connection's open streams (read under its lock): the discarding ones among them. */
    private final StreamTable<Http2Stream> streams;
    /** Streams whose rest the reader discards; guarded by the connection's lock. */
    private int discarding;
    /** Ends those discards at their deadlines while no DATA comes; made at the first, closed with the last. */
    private Deadline discardTimer;

    EarlyAnswerDiscards(Http2Connection conn, long id, StreamTable<Http2Stream> streams) {
        this.conn = conn;
        this.id = id;
        this.streams = streams;
    }

    /**
     * On a stream's thread whose handler answered early and returned ({@link Http2Stream#deferRest}): the reader
     * discards the rest of the request from now on, and the thread is free to end. False when there is no rest to
     * discard any more (the client ended or reset the stream meanwhile): the caller ends the stream as usual.
     */
    boolean discardRest(Http2Stream s) {
        int credit;
        conn.lock.lock();
        try {
            if (s.remoteClosed() || s.isReset() || streams.get(s.id()) != s) {
                return false;
            }
            long now = System.nanoTime();
            credit = s.startDiscardLocked(now);
            discarding++;
            if (discardTimer == null) {
                discardTimer = Watchdog.shared().deadline(this::discardTimerExpired);
            }
            discardTimer.armAt(earliestDiscardDueLocked());
        } finally {
            conn.lock.unlock();
        }
        if (credit > 0) {
            try {
                conn.writer.windowUpdate(s.id(), credit);
            } catch (IOException e) {
                log.debug("h2 connection {}: WINDOW_UPDATE failed: {}", id, e.toString());
            }
        }
        return true;
    }

    /**
     * On the watchdog's thread, which must not block: a discard's deadline passed (or an earlier one, since DATA moves
     * them on without re-arming). A short-lived thread resets what is overdue and re-arms for the rest.
     */
    private void discardTimerExpired() {
        ConnectionExecutors.startVirtual("h2-" + id + "-discards", this::endOverdueDiscards);
    }

    private void endOverdueDiscards() {
        List<Http2Stream> overdue = new ArrayList<>();
        conn.lock.lock();
        try {
            long now = System.nanoTime();
            for (Http2Stream s : streams.values()) {
                if (s.discardingLocked() && s.discardOverLocked(now)) {
                    overdue.add(s);
                }
            }
            if (discardTimer != null && discarding > overdue.size()) {
                discardTimer.armAt(earliestDiscardDueLocked(overdue));
            }
            if (overdue.isEmpty()) {
                return;
            }
            // The streams leave the table before their RST_STREAMs are written: counted as a handler meanwhile, or
            // the reader may park the connection (its channel then non-blocking) under the write, which failed with
            // IllegalBlockingModeException and the RST_STREAM was never sent (session 61). handlerEnded after.
            conn.writerStartsLocked();
        } finally {
            conn.lock.unlock();
        }
        try {
            for (Http2Stream s : overdue) {
                conn.resets.stopClient(s, "rest of an early-answered request not sent within its bound");
            }
        } finally {
            conn.handlerEnded();
        }
    }

    /** Under the lock: the earliest deadline of the discarding streams, those in {@code except} left out. */
    private long earliestDiscardDueLocked(List<Http2Stream> except) {
        long due = 0;
        boolean any = false;
        for (Http2Stream s : streams.values()) {
            if (s.discardingLocked() && !except.contains(s)) {
                long d = s.discardDueLocked();
                if (!any || d - due < 0) {
                    due = d;
                    any = true;
                }
            }
        }
        return due;
    }

    private long earliestDiscardDueLocked() {
        return earliestDiscardDueLocked(List.of());
    }

    /** Under the lock: stream {@code s} left the table; once no stream is discarded, the timer goes. */
    void removedLocked(Http2Stream s) {
        if (s.stopDiscardingLocked() && --discarding == 0) {
            closeDiscardTimer();
        }
    }

    /** Under the lock: every stream ended with the connection. */
    void endAllLocked() {
        discarding = 0;
        closeDiscardTimer();
    }

    /** Under the lock: no stream is discarded any more, so the watchdog need not look at this connection. */
    private void closeDiscardTimer() {
        if (discardTimer != null) {
            discardTimer.disarm();
            discardTimer.close();
            discardTimer = null;
        }
    }
}
