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
 *
 * <p>One wait may be bounded from another thread: the owner {@link #open() opens} it, another thread arms it with
 * {@link #armIfOpen} (a compare-and-set from the open state, so only while the owner waits), the owner disarms it.
 */
public final class Deadline implements AutoCloseable {
    /** The value of a deadline not armed. */
    private static final long IDLE = Long.MIN_VALUE;
    /** The value once the watchdog expired the armed deadline. */
    private static final long EXPIRED = Long.MAX_VALUE;
    /** The value while the owner waits with no bound of its own, which another thread may set ({@link #armIfOpen}). */
    private static final long OPEN = Long.MIN_VALUE + 1;
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
        long at = real(instant);
        AT.setVolatile(this, at);
        watchdog.armed(at);
    }

    /** The three sentinels are never real instants; a clock that lands on one is nudged past it. */
    private static long real(long instant) {
        return instant == IDLE || instant == OPEN ? OPEN + 1 : instant == EXPIRED ? EXPIRED - 1 : instant;
    }

    /**
     * The owner's next wait has no bound of its own, but another thread may give it one ({@link #armIfOpen}) until
     * the owner's {@link #disarm()} ends the wait: for a wait whose bound begins with an event elsewhere (an HTTP/2
     * connection's idle time, which begins when its last stream's handler returns). Owner only, between operations.
     */
    public void open() {
        AT.setVolatile(this, OPEN);
    }

    /**
     * Any thread: arms the owner's open wait ({@link #open()}) for {@code instant}; false, arming nothing, when no
     * wait is open (the owner has disarmed, or another thread armed it first). A compare-and-set, so an arming that
     * comes as the owner ends its wait either lands before the owner's disarm (which then clears it) or not at all:
     * it can never bound the owner's next operation.
     */
    public boolean armIfOpen(long instant) {
        long at = real(instant);
        if (!AT.compareAndSet(this, OPEN, at)) {
            return false;
        }
        watchdog.armed(at);
        return true;
    }

    /** What {@link #endOpen()} answers for an open wait no other thread bounded. */
    public static final long UNBOUNDED = Long.MAX_VALUE;
    /** What {@link #endOpen()} answers when the watchdog expired the wait's bound (its action ran or is running). */
    public static final long CUT = Long.MIN_VALUE;

    /**
     * Ends the owner's open wait as {@link #disarm()} ends any, and says what became of its bound: the nanoseconds
     * it had left (0 when due but not yet expired), {@link #UNBOUNDED} when no other thread armed it, or {@link #CUT}.
     * For an owner whose wait ended early (a soft timeout of its own) and whose next wait keeps the bound's end.
     */
    public long endOpen() {
        long at = (long) AT.getAndSet(this, IDLE);
        if (at == EXPIRED) {
            return CUT;
        }
        if (at == OPEN || at == IDLE) {
            return UNBOUNDED;
        }
        return Math.max(0, at - watchdog.clock().nanoTime());
    }

    /** Whether the watchdog expired this deadline and its owner has not disarmed it yet: the owner's open wait ended. */
    public boolean expired() {
        return (long) AT.getVolatile(this) == EXPIRED;
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
        return d != IDLE && d != EXPIRED && d != OPEN;
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
        if (d == IDLE || d == EXPIRED || d == OPEN) {
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
