package io.loomgate.ratelimit;

import java.util.Iterator;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
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
 * <p>Memory: the keys come from clients, so the table has a fixed {@link #capacity()} (like nginx's
 * {@code limit_req_zone} size or an HAProxy stick-table's {@code size}). A new key beyond it evicts the least recently
 * used one, approximated by CLOCK (second chance): every bucket is queued once in insertion order; a request on a key
 * sets its bucket's {@code used} mark; eviction takes the queue's head, and a marked head loses its mark and goes to
 * the tail instead of out, at most {@link #SECOND_CHANCES} times per eviction, so an eviction costs O(1). An evicted
 * key starts full when it comes back, as an expired one does: under a flood of new keys a returning client may get
 * a fresh bucket, never the gateway's memory.
 *
 * <p>Expiry: a bucket idle for twice its fill time is full again, which is what a missing bucket means, so
 * {@link #sweep} drops it (Redis does the same with its TTL). The sweep runs on its own schedule ({@link Sweeper},
 * every {@link #SWEEP_INTERVAL_NANOS}), not on a request's thread, so idle keys go even when no request comes. A
 * bucket is retired by setting its state to {@link #RETIRED} before it leaves the map, so a request that fetched it
 * just before cannot spend a token in a bucket nobody will see again: it sees RETIRED and fetches (or makes) the
 * current one.
 */
final class LocalStore implements RateLimitStore {
    static final long SWEEP_INTERVAL_NANOS = 1_000_000_000L;
    /** Keys one store holds at most unless the route says otherwise ({@code max-keys}). */
    static final int DEFAULT_CAPACITY = 100_000;
    /** Marked buckets an eviction may pass over before it takes the next one regardless. */
    static final int SECOND_CHANCES = 8;
    private static final State RETIRED = new State(0, Long.MIN_VALUE);

    private final ConcurrentHashMap<String, Bucket> buckets = new ConcurrentHashMap<>();
    /** Every bucket of the map once, oldest first (plus retired ones until an eviction or a sweep passes them). */
    private final ConcurrentLinkedQueue<Bucket> clock = new ConcurrentLinkedQueue<>();
    private final LongSupplier nanoTime;
    private final int capacity;
    private final Sweeper.Handle sweeping;

    /**
     * A store that sweeps only when {@link #sweep} is called (tests step its clock).
     *
     * @param nanoTime a monotonic clock, {@code System::nanoTime} outside tests
     * @param capacity keys held at most
     */
    LocalStore(LongSupplier nanoTime, int capacity) {
        this(nanoTime, capacity, false);
    }

    private LocalStore(LongSupplier nanoTime, int capacity, boolean swept) {
        if (capacity < 1) {
            throw new IllegalArgumentException("max-keys: expected an integer >= 1, got " + capacity);
        }
        this.nanoTime = nanoTime;
        this.capacity = capacity;
        this.sweeping = swept ? Sweeper.SHARED.every(SWEEP_INTERVAL_NANOS, this) : null;
    }

    /** A store whose idle keys {@link Sweeper#SHARED} drops every second, until it is closed or unreachable. */
    static LocalStore swept(LongSupplier nanoTime, int capacity) {
        return new LocalStore(nanoTime, capacity, true);
    }

    @Override
    public String name() {
        return "local";
    }

    int capacity() {
        return capacity;
    }

    @Override
    public Decision consume(String key, RateLimit limit) {
        long now = nanoTime.getAsLong();
        int evicted = 0;
        while (true) {
            Bucket bucket = buckets.get(key);
            if (bucket == null) {
                Bucket fresh = new Bucket(key, limit);
                bucket = buckets.putIfAbsent(key, fresh);
                if (bucket == null) {
                    bucket = fresh;
                    evicted += admit(fresh);
                }
            } else if (!bucket.used) {
                bucket.used = true; // written only when it changes: a hot key's line is not dirtied by every request
            }
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
                return new Decision(allowed, (long) Math.floor(left), evicted);
            }
        }
    }

    /**
     * Queues a new bucket, unmarked (its first request is not a reuse), and makes room for it; returns how many
     * keys it pushed out.
     */
    private int admit(Bucket fresh) {
        clock.offer(fresh);
        // One in, one out; a second eviction catches up with a race of inserts that overshot the capacity.
        int out = 0;
        while (out < 2 && buckets.size() > capacity && evictOne()) {
            out++;
        }
        return out;
    }

    /** Takes the least recently used bucket out (CLOCK); false when there was none to take. */
    private boolean evictOne() {
        int passed = 0;
        while (true) {
            Bucket b = clock.poll();
            if (b == null) {
                return false;
            }
            if (b.state.get() == RETIRED) {
                continue; // already out of the map (expired, or evicted by a racing request)
            }
            if (b.used && passed < SECOND_CHANCES) {
                b.used = false;
                passed++;
                clock.offer(b);
                continue;
            }
            if (retire(b)) {
                return true;
            }
        }
    }

    /** Marks the bucket retired and drops it from the map; false when another thread retired it first. */
    private boolean retire(Bucket b) {
        while (true) {
            State s = b.state.get();
            if (s == RETIRED) {
                return false;
            }
            if (b.state.compareAndSet(s, RETIRED)) {
                buckets.remove(b.key, b);
                return true;
            }
        }
    }

    /** Keys held now. */
    int size() {
        return buckets.size();
    }

    /** Drops buckets idle past their expiry, and the queue's record of buckets already gone. */
    void sweep() {
        long now = nanoTime.getAsLong();
        for (Iterator<Bucket> it = clock.iterator(); it.hasNext(); ) {
            Bucket b = it.next();
            State s = b.state.get();
            if (s == RETIRED) {
                it.remove();
            } else if (now - s.nanos > b.ttlNanos && b.state.compareAndSet(s, RETIRED)) {
                buckets.remove(b.key, b);
                it.remove();
            }
        }
    }

    /** Stops the scheduled sweep; the buckets go with the store. */
    @Override
    public void close() {
        if (sweeping != null) {
            sweeping.cancel();
        }
    }

    /** One key's bucket; it starts full, as SCG's script treats a missing key. */
    private static final class Bucket {
        final String key;
        final AtomicReference<State> state;
        final long ttlNanos;
        /** Used since the clock hand last passed: spared once by eviction. */
        volatile boolean used;

        Bucket(String key, RateLimit limit) {
            this.key = key;
            this.state = new AtomicReference<>(new State(limit.burstCapacity(), Long.MIN_VALUE / 2));
            this.ttlNanos = (long) Math.max(1e9, limit.fillSeconds() * 2e9);
        }
    }

    /** Tokens left at {@code nanos}. */
    private record State(double tokens, long nanos) {
    }
}
