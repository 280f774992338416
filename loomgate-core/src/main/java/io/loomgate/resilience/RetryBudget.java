package io.loomgate.resilience;

import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.LongSupplier;

/**
 * Keeps a route's retries to a share of its requests (Finagle's RetryBudget, Envoy's retry_budget): over the last
 * {@link #WINDOW_SECONDS} seconds, retries may number at most {@code percent}% of the requests plus a floor of
 * {@code minPerSecond} per second. When every endpoint fails, clients then see the failure instead of the gateway
 * multiplying the load on an upstream that is already struggling.
 *
 * <p>Counts live in one slot per second of a ring, each slot stamped with its second; a slot whose stamp is old is
 * reset by the first thread that lands in it. Lock-free: two threads resetting the same slot at once can lose a count
 * or two at a second's boundary, which only nudges the budget by that much.
 */
public final class RetryBudget {
    static final int WINDOW_SECONDS = 10;

    private final int percent;
    private final int minPerSecond;
    private final LongSupplier nanoTime;
    // per slot: [stamp, requests, retries] at 3*i, 3*i+1, 3*i+2
    private final AtomicLongArray slots = new AtomicLongArray(3 * WINDOW_SECONDS);

    public RetryBudget(int percent, int minPerSecond) {
        this(percent, minPerSecond, System::nanoTime);
    }

    RetryBudget(int percent, int minPerSecond, LongSupplier nanoTime) {
        this.percent = percent;
        this.minPerSecond = minPerSecond;
        this.nanoTime = nanoTime;
    }

    /** Counts one request (every exchange of the route, retried or not). */
    public void requestStarted() {
        add(1, 1);
    }

    /** Takes one retry from the budget if there is one left; false when it is spent. */
    public boolean tryRetry() {
        long second = second();
        long requests = 0;
        long retries = 0;
        for (int i = 0; i < WINDOW_SECONDS; i++) {
            long stamp = slots.get(3 * i);
            if (stamp > second - WINDOW_SECONDS && stamp <= second) {
                requests += slots.get(3 * i + 1);
                retries += slots.get(3 * i + 2);
            }
        }
        long allowed = requests * percent / 100 + (long) minPerSecond * WINDOW_SECONDS;
        if (retries >= allowed) {
            return false;
        }
        add(2, 1);
        return true;
    }

    private void add(int field, long n) {
        long second = second();
        int i = (int) Math.floorMod(second, (long) WINDOW_SECONDS);
        long stamp = slots.get(3 * i);
        if (stamp != second && slots.compareAndSet(3 * i, stamp, second)) {
            slots.set(3 * i + 1, 0);
            slots.set(3 * i + 2, 0);
        }
        slots.addAndGet(3 * i + field, n);
    }

    private long second() {
        return Math.floorDiv(nanoTime.getAsLong(), 1_000_000_000L) + 1; // + 1: a fresh slot's stamp 0 is never "now"
    }
}
