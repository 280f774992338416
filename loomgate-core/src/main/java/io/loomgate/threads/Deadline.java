package io.loomgate.threads;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The deadline of one blocking operation at a time (a socket read, a socket write, a load request), enforced by a
 * {@link Watchdog} from outside: the owning thread arms it before blocking and disarms it after, and the watchdog
 * runs the expiry action (closing or shutting down the socket, which ends the blocked call) when an armed deadline
 * passes. Made by {@link Watchdog#deadline}; lives as long as its connection, until {@link #close()}.
 *
 * <p>Cost on the owner's path: arming is one ordered store, disarming one atomic exchange; no timer, no timed park.
 * Expiry is claimed by compare-and-set, so it happens at most once per arming and only to the arming that was
 * overdue: an operation that completes as the watchdog looks is either disarmed first (no action) or reported as
 * expired by {@link #disarm()} (the action ran or is running). It can never hit the next operation by mistake.
 */
public final class Deadline implements AutoCloseable {
    /** The value of a deadline not armed. */
    private static final long IDLE = Long.MIN_VALUE;
    /** The value once the watchdog expired the armed deadline. */
    private static final long EXPIRED = Long.MAX_VALUE;
    private static final VarHandle AT = VarHandles.field(MethodHandles.lookup(), "at", long.class);

    private final Watchdog watchdog;
    private final Runnable onExpiry;
    /** The armed instant on the watchdog's clock, or IDLE, or EXPIRED. Accessed through AT. */
    @SuppressWarnings("unused")
    private volatile long at = IDLE;

    Deadline(Watchdog watchdog, Runnable onExpiry) {
        this.watchdog = watchdog;
        this.onExpiry = onExpiry;
    }

    /** The clock instants are read from: arm with {@code clock().nanoTime() + timeout}. */
    public NanoClock clock() {
        return watchdog.clock();
    }

    /**
     * Arms for an instant of the {@link #clock()}. Only the owner arms and disarms, one operation at a time.
     * A volatile store, then the watchdog's planned wake-up is read: either the watchdog's look sees this instant or
     * this read sees the look's far-ahead plan and moves it forward (the watchdog sleeps until the earliest deadline).
     */
    public void armAt(long instant) {
        // The two sentinels are never real instants; a clock that lands on one is nudged by a nanosecond.
        long at = instant == IDLE ? IDLE + 1 : instant == EXPIRED ? EXPIRED - 1 : instant;
        AT.setVolatile(this, at);
        watchdog.armed(at);
    }

    /** Arms for {@code nanos} from now. */
    public void armAfter(long nanos) {
        armAt(watchdog.clock().nanoTime() + nanos);
    }

    /** Ends the wait; returns whether the watchdog expired it meanwhile (its action then ran or is running). */
    public boolean disarm() {
        return (long) AT.getAndSet(this, IDLE) == EXPIRED;
    }

    /** Stops the watchdog looking at this deadline. Idempotent. */
    @Override
    public void close() {
        watchdog.forget(this);
    }

    /** Whether an operation is waiting under this deadline now (for tests: an owner blocked in its call). */
    boolean armed() {
        long d = (long) AT.getAcquire(this);
        return d != IDLE && d != EXPIRED;
    }

    /** What {@link #expireIfDue} answers when it expired the deadline (never an armed instant). */
    static final long EXPIRED_BY_LOOK = IDLE;
    /** What {@link #expireIfDue} answers for a deadline not armed, or expired earlier (never an armed instant). */
    static final long NOT_ARMED = EXPIRED;

    /**
     * The watchdog's look: claims and runs the expiry if armed and due at {@code now}. Returns
     * {@link #EXPIRED_BY_LOOK} if it did, {@link #NOT_ARMED}, or the armed instant, not yet due.
     */
    long expireIfDue(long now) {
        long d = (long) AT.getVolatile(this); // volatile, not acquire: ordered after the look's far-ahead plan (armAt)
        if (d == IDLE || d == EXPIRED) {
            return NOT_ARMED;
        }
        if (now - d < 0) {
            return d;
        }
        if (!AT.compareAndSet(this, d, EXPIRED)) {
            return NOT_ARMED; // disarmed or re-armed meanwhile: a re-arming went through armed() itself
        }
        onExpiry.run();
        return EXPIRED_BY_LOOK;
    }
}
