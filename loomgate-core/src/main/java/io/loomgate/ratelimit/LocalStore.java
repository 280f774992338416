package io.loomgate.ratelimit;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;

/**
 * Token buckets in this gateway's memory: the same maths as the Redis script, with time from a monotonic clock in
 * nanoseconds, so tokens come back smoothly (one every {@code 1/rate} s) rather than in whole-second steps.
 *
 * <p>Concurrency: no lock. The map gives each key one {@link Bucket}; a bucket's state is an immutable {@link State}
 * swapped by compare-and-set, so two requests for one key never both take the last token, and requests for different
 * keys never touch the same memory.
 *
 * <p>Memory: a bucket idle for twice its fill time is full again, which is what a missing bucket means, so it is
 * dropped (Redis does the same with its TTL). The sweep runs on a request's thread, at most once per
 * {@link #SWEEP_INTERVAL_NANOS}, by whichever request wins a compare-and-set; it visits each key once. A bucket is
 * retired by setting its state to {@link #RETIRED} before it leaves the map, so a request that fetched it just before
 * cannot spend a token in a bucket nobody will see again: it sees RETIRED and fetches (or makes) the current one.
 */
final class LocalStore implements RateLimitStore {
    static final long SWEEP_INTERVAL_NANOS = 1_000_000_000L;
    private static final State RETIRED = new State(0, Long.MIN_VALUE);

    private final ConcurrentHashMap<String, Bucket> buckets = new ConcurrentHashMap<>();
    private final LongSupplier nanoTime;
    private final AtomicLong lastSweep;

    /** @param nanoTime a monotonic clock, {@code System::nanoTime} outside tests */
    LocalStore(LongSupplier nanoTime) {
        this.nanoTime = nanoTime;
        this.lastSweep = new AtomicLong(nanoTime.getAsLong());
    }

    @Override
    public String name() {
        return "local";
    }

    @Override
    public Decision consume(String key, RateLimit limit) {
        long now = nanoTime.getAsLong();
        sweepIfDue(now);
        while (true) {
            Bucket bucket = buckets.computeIfAbsent(key, k -> new Bucket(limit));
            State before = bucket.state.get();
            if (before == RETIRED) {
                buckets.remove(key, bucket);
                continue;
            }
            double elapsed = Math.max(0, now - before.nanos) / 1e9;
            double filled = Math.min(limit.burstCapacity(), before.tokens + elapsed * limit.replenishRate());
            boolean allowed = filled >= limit.requestedTokens();
            double left = allowed ? filled - limit.requestedTokens() : filled;
            // A later 'now' may lose the race to an earlier one; the clock then never runs backwards for the bucket.
            if (bucket.state.compareAndSet(before, new State(left, Math.max(now, before.nanos)))) {
                return new Decision(allowed, (long) Math.floor(left));
            }
        }
    }

    /** Keys held now (for tests of the expiry). */
    int size() {
        return buckets.size();
    }

    private void sweepIfDue(long now) {
        long last = lastSweep.get();
        if (now - last < SWEEP_INTERVAL_NANOS || !lastSweep.compareAndSet(last, now)) {
            return;
        }
        buckets.forEach((key, bucket) -> {
            State s = bucket.state.get();
            if (s != RETIRED && now - s.nanos > bucket.ttlNanos && bucket.state.compareAndSet(s, RETIRED)) {
                buckets.remove(key, bucket);
            }
        });
    }

    /** One key's bucket; it starts full, as SCG's script treats a missing key. */
    private static final class Bucket {
        final AtomicReference<State> state;
        final long ttlNanos;

        Bucket(RateLimit limit) {
            this.state = new AtomicReference<>(new State(limit.burstCapacity(), Long.MIN_VALUE / 2));
            this.ttlNanos = (long) Math.max(1e9, limit.fillSeconds() * 2e9);
        }
    }

    /** Tokens left at {@code nanos}. */
    private record State(double tokens, long nanos) {
    }
}
