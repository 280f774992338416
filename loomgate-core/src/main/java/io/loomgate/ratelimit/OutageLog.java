package io.loomgate.ratelimit;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The log of a store's outages, one per gateway for every route using the store: at most one line per
 * {@link #INTERVAL_NANOS}, with the count of failed calls since the line before, whether the store is down for good
 * or flapping between timeouts and answers under load (which before wrote a line on every flap: 2,084 lines in 10 s).
 * Lock-free: the request that wins a compare-and-set on the time of the last line writes the next one. The line that
 * the store answers again is written at the first answer after an outage line, whenever that comes: held to the
 * interval as well, a short outage's end was written only with an answer ten seconds after the outage line, or never
 * when the store failed again before (session 55: Redis back 7 s after the line, killed again 1 s later, read as one
 * outage). One such line per outage line keeps a flapping store at two lines per interval.
 */
final class OutageLog {
    private static final Logger LOG = LoggerFactory.getLogger(OutageLog.class);
    static final long INTERVAL_NANOS = 10_000_000_000L;

    private final String store;
    private final RedisSettings.FailureMode mode;
    private final LongSupplier nanoTime;
    private final long intervalNanos;
    private final AtomicLong failures = new AtomicLong();
    private final AtomicLong skipped = new AtomicLong();
    private final AtomicLong lastLine;
    /** An outage line was written and no line that the store answers again since. */
    private final AtomicBoolean announced = new AtomicBoolean();

    OutageLog(String store, RedisSettings.FailureMode mode, LongSupplier nanoTime, long intervalNanos) {
        this.store = store;
        this.mode = mode;
        this.nanoTime = nanoTime;
        this.intervalNanos = intervalNanos;
        this.lastLine = new AtomicLong(nanoTime.getAsLong() - intervalNanos);
    }

    void failed(StoreUnavailableException e) {
        failures.incrementAndGet();
        if (lineDue()) {
            announced.set(true);
            LOG.warn("rate limiting: {} store unavailable ({} failed call(s) and {} request(s) held off it since the "
                            + "last line; at most one line per {}s): {}; {}", store, failures.getAndSet(0),
                    skipped.getAndSet(0), intervalNanos / 1_000_000_000L,
                    e.getMessage(), mode == RedisSettings.FailureMode.DENY
                            ? "refusing those requests with 503 (failure-mode: deny)"
                            : "each route's local limit applies meanwhile (failure-mode: open)");
        }
    }

    /** A request decided without the store because it is held off after a failure ({@link HoldOff}). */
    void skipped() {
        skipped.incrementAndGet();
    }

    void answered() {
        // get() first: every answered call passes here, and a compare-and-set would contend on them all
        if (announced.get() && announced.compareAndSet(true, false)) {
            LOG.info("rate limiting: {} store answers again ({} failed call(s) and {} request(s) held off it since "
                    + "the last line); limits shared again", store, failures.getAndSet(0), skipped.getAndSet(0));
        }
    }

    private boolean lineDue() {
        long now = nanoTime.getAsLong();
        long last = lastLine.get();
        return now - last >= intervalNanos && lastLine.compareAndSet(last, now);
    }
}
