package io.loomgate.threads;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.Collections;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.LockSupport;

/**
 * Enforces {@link Deadline}s from one thread, so that blocking operations (reads and writes on sockets, a load
 * generator's requests) need no timed park of their own. A socket read with {@code SO_TIMEOUT} makes a virtual thread
 * arm and cancel a timer on every read, which cost about a fifth of the gateway's CPU per request; here a read
 * publishes its deadline, parks untimed, and the watchdog cuts the ones that overran.
 *
 * <p>A started watchdog's thread sleeps until the earliest armed deadline is due, never longer than its tick, rather
 * than waking once per tick (session 55: the shared one's 50 wake-ups per second cost 15-20 ms of CPU per second on
 * the 2-core test machine, the gateway's largest cost with no request to serve). Arming a deadline earlier than the
 * planned wake-up moves the wake-up forward (a compare-and-set and an unpark, only then); arming a later one, the
 * common case since most deadlines of a kind share one timeout, costs one volatile read of the planned instant.
 * While the thread looks, the planned instant is far in the future, so that every deadline armed meanwhile either is
 * seen by the look or moves the wake-up forward.
 *
 * <p>Each look reads one volatile value per registered deadline: for 10,000 keep-alive connections and their
 * upstream connections, about 20,000 reads. Deadlines are registered once per connection, not per operation.
 *
 * <p>Three ways to get one: {@link #shared()}, the process-wide watchdog of socket reads (at least one look per
 * second); {@link #start}, one with its own thread and longest sleep (a listener's write-stall watchdog, a load
 * run's); and {@link #driven}, one with no thread whose clock and {@link #check()} a test drives by hand.
 */
public final class Watchdog implements AutoCloseable {
    /**
     * The shared watchdog's longest sleep. Deadlines are cut when due whatever it is (the thread sleeps until the
     * earliest); it only bounds how late a deadline armed in a race the look could not see would be cut.
     */
    public static final Duration SHARED_TICK = Duration.ofSeconds(1);
    /** How far ahead the planned wake-up is put while the thread looks: further than any deadline anyone arms. */
    private static final long LOOKING = 1L << 62;
    private static final VarHandle WAKE_AT = VarHandles.field(MethodHandles.lookup(), "wakeAt", long.class);

    private final NanoClock clock;
    private final Set<Deadline> deadlines = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;
    /** The started watchdog's thread, set before the watchdog is handed out; null for a driven one. */
    private volatile Thread thread;
    /** How many deadlines the last look expired; written and read by the one thread that looks. */
    private int expiredByLastLook;
    /** The instant the thread plans to look next, on the clock. Accessed through WAKE_AT. */
    private volatile long wakeAt;

    private Watchdog(NanoClock clock) {
        this.clock = clock;
    }

    /** The process-wide watchdog of socket read deadlines, started on first use and never stopped. */
    public static Watchdog shared() {
        return Shared.INSTANCE;
    }

    /**
     * A watchdog on the system clock with its own daemon thread until {@link #close()}: the thread looks when the
     * earliest armed deadline is due and at least once per {@code tick}.
     */
    public static Watchdog start(String name, Duration tick) {
        if (tick.isNegative() || tick.isZero()) {
            throw new IllegalArgumentException("a watchdog's tick must be positive, not " + tick);
        }
        Watchdog w = new Watchdog(NanoClock.SYSTEM);
        long tickNanos = tick.toNanos();
        w.wakeAt = w.clock.nanoTime() + tickNanos;
        w.thread = ConnectionExecutors.startDaemon(name, () -> {
            while (!w.closed) {
                long now = w.clock.nanoTime();
                long wake = (long) WAKE_AT.getVolatile(w);
                if (wake - now > 0) {
                    LockSupport.parkNanos(wake - now); // an earlier deadline armed meanwhile unparks
                    continue;
                }
                WAKE_AT.setVolatile(w, now + LOOKING);
                long next = w.look(now);
                w.wakeNoLaterThan(next - now - tickNanos > 0 ? now + tickNanos : next);
            }
        });
        return w;
    }

    /** A watchdog with no thread: time is {@code clock}'s, and nothing expires until the caller runs {@link #check()}. */
    public static Watchdog driven(NanoClock clock) {
        return new Watchdog(clock);
    }

    public NanoClock clock() {
        return clock;
    }

    /**
     * A new deadline, watched until it is closed. {@code onExpiry} runs on the watchdog's thread and must not block:
     * it ends the operation (closes or shuts down a socket), the owner reports it.
     */
    public Deadline deadline(Runnable onExpiry) {
        Deadline d = new Deadline(this, onExpiry);
        deadlines.add(d);
        return d;
    }

    /** One look at every deadline: expires those armed and past. Returns how many it expired. */
    public int check() {
        look(clock.nanoTime());
        return expiredByLastLook;
    }

    /** Expires the deadlines armed and due at {@code now}; returns the earliest instant still armed (or far ahead). */
    private long look(long now) {
        long earliest = now + LOOKING;
        int expired = 0;
        for (Deadline d : deadlines) {
            try {
                long armed = d.expireIfDue(now);
                if (armed == Deadline.EXPIRED_BY_LOOK) {
                    expired++;
                } else if (armed != Deadline.NOT_ARMED && armed - earliest < 0) {
                    earliest = armed;
                }
            } catch (RuntimeException e) {
                // One owner's failing action must not stop the watchdog for everyone else.
                Thread t = Thread.currentThread();
                t.getUncaughtExceptionHandler().uncaughtException(t, e);
            }
        }
        expiredByLastLook = expired;
        return earliest;
    }

    /**
     * A deadline was armed for {@code instant}: if the thread plans to look later than that (or is looking), the
     * planned instant moves forward and the thread is woken to sleep until it. A driven watchdog has nothing to wake.
     */
    void armed(long instant) {
        if (thread != null && instant - (long) WAKE_AT.getVolatile(this) < 0 && wakeNoLaterThan(instant)) {
            LockSupport.unpark(thread);
        }
    }

    /** Lowers the planned wake-up to {@code instant} unless it is already earlier; returns whether it lowered it. */
    private boolean wakeNoLaterThan(long instant) {
        long w;
        while (instant - (w = (long) WAKE_AT.getVolatile(this)) < 0) {
            if (WAKE_AT.compareAndSet(this, w, instant)) {
                return true;
            }
        }
        return false;
    }

    /** How many deadlines are watched (for tests and leak checks). */
    public int watched() {
        return deadlines.size();
    }

    /** The deadlines watched now, for tests of this package. */
    Set<Deadline> deadlines() {
        return Collections.unmodifiableSet(deadlines);
    }

    void forget(Deadline d) {
        deadlines.remove(d);
    }

    /** Stops the thread of a started watchdog after its current check; the shared one cannot be closed. */
    @Override
    public void close() {
        if (this == Shared.INSTANCE) {
            throw new IllegalStateException("the shared watchdog lives as long as the process");
        }
        closed = true;
        LockSupport.unpark(thread);
    }

    /** Holder: the shared watchdog's thread starts when it is first asked for. */
    private static final class Shared {
        static final Watchdog INSTANCE = start("read-watchdog", SHARED_TICK);
    }
}
