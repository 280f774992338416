package io.loomgate.ratelimit;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;

/**
 * Keeps requests off a store that has just failed, for every route using it: after a failed call the store is left
 * alone for {@link #FIRST_PAUSE_NANOS} (the routes' {@code failure-mode} decides meanwhile), then one request probes
 * it; a failed probe doubles the pause up to {@link #MAX_PAUSE_NANOS}, an answer ends the hold-off.
 *
 * <p>Why: a Redis call that times out must close its connection (the late reply would answer the next call), so
 * under a flood a stalled Redis turned every request into a new connection (514 dials in 6 s in
 * {@code RedisFailureModeTest}, against a pool of 64) and the stall into a reconnect storm. Held off, the calls
 * that fail are the ones in flight when the stall began and one probe per pause.
 *
 * <p>Lock-free: the state is the end of the current pause (a volatile long) and a flag that elects the one probe.
 */
final class HoldOff {
    static final long FIRST_PAUSE_NANOS = 100_000_000L;
    static final long MAX_PAUSE_NANOS = 1_000_000_000L;
    private static final long CALLING = Long.MIN_VALUE;

    /** What a request may do with the store now. */
    enum Permit { CALL, PROBE, SKIP }

    private final LongSupplier nanoTime;
    private volatile long pausedUntil = CALLING;
    private volatile long pause = FIRST_PAUSE_NANOS;
    private final AtomicBoolean probing = new AtomicBoolean();

    HoldOff(LongSupplier nanoTime) {
        this.nanoTime = nanoTime;
    }

    Permit permit() {
        long until = pausedUntil;
        if (until == CALLING) {
            return Permit.CALL;
        }
        if (nanoTime.getAsLong() - until < 0 || !probing.compareAndSet(false, true)) {
            return Permit.SKIP;
        }
        return Permit.PROBE;
    }

    /** A call failed: the first failure starts a pause, a failed probe doubles it; late failures change nothing. */
    void failed(Permit permit) {
        if (permit == Permit.PROBE) {
            pause = Math.min(MAX_PAUSE_NANOS, pause * 2);
            pausedUntil = nanoTime.getAsLong() + pause;
            probing.set(false);
        } else if (permit == Permit.CALL && pausedUntil == CALLING) {
            pause = FIRST_PAUSE_NANOS;
            pausedUntil = nanoTime.getAsLong() + pause;
        }
    }

    /** A call answered: requests use the store again. */
    void answered(Permit permit) {
        if (permit == Permit.PROBE || pausedUntil != CALLING) {
            pausedUntil = CALLING;
            probing.set(false);
        }
    }
}
