package io.loomgate.proxy;

import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * A route's max-in-flight: at most N requests forwarded at once; the next waits up to the queue timeout for a slot
 * and is then refused with 503. Virtual threads are unbounded and memory is not: this is what turns an overload into
 * fast errors instead of a heap full of waiting requests.
 */
final class RouteAdmission {
    private final Semaphore slots;
    private final long queueNanos;

    /** @param maxInFlight 0 for no limit */
    RouteAdmission(int maxInFlight, java.time.Duration queueTimeout) {
        this.slots = maxInFlight > 0 ? new Semaphore(maxInFlight) : null;
        this.queueNanos = queueTimeout.toNanos();
    }

    /** Takes a slot; false when none freed within the queue timeout. */
    boolean enter() throws InterruptedException {
        if (slots == null) {
            return true;
        }
        return queueNanos <= 0 ? slots.tryAcquire() : slots.tryAcquire(queueNanos, TimeUnit.NANOSECONDS);
    }

    /** {@link #enter()}, where an interrupt while queued counts as not admitted (the flag stays set). */
    boolean tryEnter() {
        try {
            return enter();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    void leave() {
        if (slots != null) {
            slots.release();
        }
    }
}
