package io.loomgate.threads;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Gives a connection's new virtual thread its first run while established connections keep the carriers busy.
 *
 * <p>Why: in JDK 25 a virtual thread's start is always an external submission to the scheduler, and a carrier takes
 * external work only when its own queue is empty. Under sustained load that queue never empties (the JDK's socket
 * sub-poller yields after every poll that found events and wakes the threads it polled into the same queue, and
 * {@code HttpInput}'s yield goes there too), so a new connection's thread waited seconds for its first run while the
 * established ones were served (bench/newconn: p90 4.0 s, max 12.1 s, session 26). Nothing in JDK 25's public API lets
 * a start jump that queue; what is left is to let the queue empty.
 *
 * <p>How: the listener hands each connection task to its executor through {@link #execute}; the task's first
 * instruction marks it begun. When starts have been pending with none begun for {@link #PATIENCE_NANOS}, a virtual
 * thread about to wait for a read ({@link #stepAside}, from {@code HttpInput}) waits instead until every pending
 * start has begun, at most {@link #STEP_ASIDE_NANOS}. Once every busy connection stepped aside, the sub-poller finds
 * nothing more, parks, the carrier's queue empties and the carrier runs the starts. The waiters hold no lock; their
 * bytes wait in the socket. With nothing pending (the steady state) the cost is one read of a counter per wait.
 */
public final class StartGate {
    /** How long starts may wait with none begun before readers step aside: a healthy start takes microseconds. */
    static final long PATIENCE_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
    /** The longest a reader steps aside, whatever happens to the starts it waits for (a deadline on every wait). */
    static final long STEP_ASIDE_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

    /** Tasks handed to an executor by {@link #execute} that have not begun. */
    private static final AtomicInteger PENDING = new AtomicInteger();
    /** When a start last began, or when the first of the pending ones was handed over (System.nanoTime). */
    private static volatile long lastProgress;
    /** Released when nothing is pending any more; null while no reader steps aside. */
    private static final AtomicReference<CountDownLatch> GATE = new AtomicReference<>();
    /** Times readers stepped aside (statistics for tests and the journal). */
    private static final AtomicInteger STEPPED_ASIDE = new AtomicInteger();

    private StartGate() {
    }

    /**
     * Hands {@code task} to {@code executor} as a start the gate watches: on the thread that submits (the accept loop,
     * the idle poller). Throws what {@code execute} throws, the task then not counted.
     */
    public static void execute(Executor executor, Runnable task) {
        if (PENDING.getAndIncrement() == 0) {
            lastProgress = System.nanoTime(); // the wait of this start, not the quiet time before it
        }
        try {
            executor.execute(new Tracked(task));
        } catch (RuntimeException | Error e) { // refused (the executor shut down), or no thread could be made
            begun();
            throw e;
        }
    }

    /**
     * Called by a virtual thread before a read that will most likely wait: when starts are starved (see the class),
     * waits until they have all begun or {@link #STEP_ASIDE_NANOS} passed. Returns at once otherwise.
     */
    public static void stepAside() {
        if (PENDING.get() == 0 || System.nanoTime() - lastProgress < PATIENCE_NANOS) {
            return;
        }
        CountDownLatch gate = GATE.get();
        if (gate == null) {
            CountDownLatch fresh = new CountDownLatch(1);
            gate = GATE.compareAndExchange(null, fresh);
            if (gate == null) {
                gate = fresh;
            }
        }
        if (PENDING.get() == 0) { // the last start began while the gate was put up: no one else will open it
            open();
            return;
        }
        STEPPED_ASIDE.incrementAndGet();
        try {
            gate.await(STEP_ASIDE_NANOS, TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // the read that follows sees it
        }
    }

    /** Times a reader stepped aside since the JVM started. */
    public static int steppedAside() {
        return STEPPED_ASIDE.get();
    }

    /** Starts handed over and not begun (tests). */
    static int pending() {
        return PENDING.get();
    }

    private static void begun() {
        lastProgress = System.nanoTime();
        if (PENDING.decrementAndGet() == 0) {
            open();
        }
    }

    private static void open() {
        CountDownLatch gate = GATE.getAndSet(null);
        if (gate != null) {
            gate.countDown();
        }
    }

    /** A watched start: marks itself begun, then runs the task. */
    private record Tracked(Runnable task) implements Runnable {
        @Override
        public void run() {
            begun();
            task.run();
        }
    }
}
