package io.loomgate.threads;

import java.time.Duration;
import java.util.Collections;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.LockSupport;

/**
 * Enforces {@link Deadline}s from one thread, so that blocking operations (reads and writes on sockets, a load
 * generator's requests) need no timed park of their own. A socket read with {@code SO_TIMEOUT} makes a virtual thread
 * arm and cancel a timer on every read, which cost about a fifth of the gateway's CPU per request; here a read
 * publishes its deadline, parks untimed, and a watchdog that looks once per tick cuts the ones that overran.
 * Deadlines are thus enforced within one tick after they pass.
 *
 * <p>Each check reads one volatile value per registered deadline: for 10,000 keep-alive connections and their
 * upstream connections, about 20,000 reads per tick. Deadlines are registered once per connection, not per operation,
 * so the owner's path never touches the set.
 *
 * <p>Three ways to get one: {@link #shared()}, the process-wide watchdog of socket reads (20 ms tick);
 * {@link #start}, one with its own thread and tick (a listener's write-stall watchdog, a load run's); and
 * {@link #driven}, one with no thread whose clock and {@link #check()} a test drives by hand.
 */
public final class Watchdog implements AutoCloseable {
    /** The shared watchdog's tick: socket reads are cut within this of their deadline. */
    public static final Duration SHARED_TICK = Duration.ofMillis(20);

    private final NanoClock clock;
    private final Set<Deadline> deadlines = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    private Watchdog(NanoClock clock) {
        this.clock = clock;
    }

    /** The process-wide watchdog of socket read deadlines, started on first use and never stopped. */
    public static Watchdog shared() {
        return Shared.INSTANCE;
    }

    /** A watchdog on the system clock that checks once per tick on its own daemon thread until {@link #close()}. */
    public static Watchdog start(String name, Duration tick) {
        if (tick.isNegative() || tick.isZero()) {
            throw new IllegalArgumentException("a watchdog's tick must be positive, not " + tick);
        }
        Watchdog w = new Watchdog(NanoClock.SYSTEM);
        long tickNanos = tick.toNanos();
        ConnectionExecutors.startDaemon(name, () -> {
            while (!w.closed) {
                LockSupport.parkNanos(tickNanos);
                w.check();
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
        long now = clock.nanoTime();
        int expired = 0;
        for (Deadline d : deadlines) {
            try {
                if (d.expireIfDue(now)) {
                    expired++;
                }
            } catch (RuntimeException e) {
                // One owner's failing action must not stop the watchdog for everyone else.
                Thread t = Thread.currentThread();
                t.getUncaughtExceptionHandler().uncaughtException(t, e);
            }
        }
        return expired;
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
    }

    /** Holder: the shared watchdog's thread starts when it is first asked for. */
    private static final class Shared {
        static final Watchdog INSTANCE = start("read-watchdog", SHARED_TICK);
    }
}
