package io.loomgate.server;

import java.io.IOException;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How an accept loop waits out failing accepts (EMFILE at the file-descriptor limit, and the like): a pause of
 * {@link #FIRST_PAUSE_NANOS}, doubled on every further failure up to {@link #MAX_PAUSE_NANOS}, and two log lines per
 * episode, when it starts and when an accept succeeds again with the count and the length, instead of one line per
 * failed attempt (which was ~96 lines a second). Owned by one accept loop's thread: not thread-safe.
 */
final class AcceptBackoff {
    private static final Logger log = LoggerFactory.getLogger(AcceptBackoff.class);
    static final long FIRST_PAUSE_NANOS = 100_000_000L;
    static final long MAX_PAUSE_NANOS = 1_000_000_000L;

    private final String where;
    private final LongSupplier nanoTime;
    private long failures;
    private long since;
    private long pause;

    AcceptBackoff(String where, LongSupplier nanoTime) {
        this.where = where;
        this.nanoTime = nanoTime;
    }

    /** Notes one failed accept; returns how long to pause before the next. */
    long failed(IOException e) {
        if (failures++ == 0) {
            since = nanoTime.getAsLong();
            pause = FIRST_PAUSE_NANOS;
            log.warn("accept on {} failed: {}; pausing accepts ({} ms, doubling to {} ms while it fails; one line "
                            + "when it recovers)", where, e.getMessage(), FIRST_PAUSE_NANOS / 1_000_000,
                    MAX_PAUSE_NANOS / 1_000_000);
        } else {
            pause = Math.min(MAX_PAUSE_NANOS, pause * 2);
        }
        return pause;
    }

    /** Notes an accept that worked: ends an episode of failures, if one was under way. */
    void succeeded() {
        if (failures > 0) {
            log.info("accept on {} works again after {} failed attempt(s) over {} ms", where, failures,
                    (nanoTime.getAsLong() - since) / 1_000_000);
            failures = 0;
        }
    }
}
