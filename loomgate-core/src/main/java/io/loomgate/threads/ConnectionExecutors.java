package io.loomgate.threads;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * The only place in Loomgate that makes threads. Everything else receives an executor (for connections) or asks here
 * for a named background thread (accept loops, timers). Keeping this in one class is what makes the
 * "virtual vs platform(200)" comparison honest: the same code runs with a different executor injected.
 */
public final class ConnectionExecutors {
    /*
     * The virtual threads made here, counted as they run. Counting here, rather than from JFR's
     * jdk.VirtualThreadStart/End events, matters for HTTP/2: a thread per stream made those two events, and the JFR
     * thread checkpoint each event's thread needs, per request, and parsing them cost about 3% of W8's CPU
     * (docs/journal/2026-11-23-tls-and-http2.md).
     */
    private static final LongAdder VIRTUAL_STARTED = new LongAdder();
    private static final LongAdder VIRTUAL_ENDED = new LongAdder();

    private ConnectionExecutors() {
    }

    /**
     * An executor that runs each submitted connection task on a thread of this model. Thread names start with
     * {@code prefix}; connection code renames its thread after its peer.
     */
    public static ExecutorService create(ThreadModel model, String prefix) {
        // instanceof, not a pattern switch: JDK 25's AOT cache does not hold its bootstrap, which
        // spun a class before the first answer (docs/architecture.md, "Start-up")
        if (model instanceof ThreadModel.Virtual) {
            ThreadFactory virtual = Thread.ofVirtual().name(prefix + "-", 0).factory();
            return Executors.newThreadPerTaskExecutor(r -> virtual.newThread(counted(r)));
        }
        if (model instanceof ThreadModel.Platform p) {
            return Executors.newFixedThreadPool(p.threads(), platformFactory(prefix));
        }
        if (model instanceof ThreadModel.Cached) {
            return Executors.newCachedThreadPool(platformFactory(prefix));
        }
        throw new IllegalArgumentException("unknown thread model " + model);
    }

    /** Starts a named daemon platform thread for a long-running loop (accept loop, signal handling, timers). */
    public static Thread startDaemon(String name, Runnable task) {
        return Thread.ofPlatform().name(name).daemon(true).start(task);
    }

    /** Starts a named virtual thread for a short side task (the second direction of a tunnel, a drain). */
    public static Thread startVirtual(String name, Runnable task) {
        return Thread.ofVirtual().name(name).start(countedBeside(task));
    }

    /**
     * Starts a thread for the second direction of a connection's work (a request body relayed to the origin while the
     * response comes back), of the caller's kind: virtual under the virtual model, a platform daemon thread under the
     * platform ones, so the "virtual vs platform" comparison stays honest about how many threads an exchange takes.
     */
    public static Thread startBeside(String name, Runnable task) {
        if (Thread.currentThread().isVirtual()) {
            return startVirtual(name, task);
        }
        return Thread.ofPlatform().name(name).daemon(true).start(task);
    }

    /** Virtual threads made here that have started running, since the JVM started. */
    public static long virtualThreadsStarted() {
        return VIRTUAL_STARTED.sum();
    }

    /** Virtual threads made here that are running or blocked now: started and not yet ended. */
    public static long virtualThreadsAlive() {
        // ended first: a thread that ends between the two reads is then counted as alive, never as less than none
        long ended = VIRTUAL_ENDED.sum();
        return Math.max(0, VIRTUAL_STARTED.sum() - ended);
    }

    /**
     * A connection's thread (the executor's task): counted, and its mark freed as it ends. One lambda here and another
     * in {@link #countedBeside}, not one for both: each lambda's {@code task.run()} is the root C2 compiles a thread's
     * whole work into, and with one for both, the HTTP/1.1 warm-up compiled it for the executor's task alone and
     * HTTP/2's first streams trapped there (class_check) and had it compiled again (docs/journal/2026-12-01-s53-w9jit.md).
     */
    private static Runnable counted(Runnable task) {
        return () -> {
            VIRTUAL_STARTED.increment();
            try {
                task.run();
            } finally {
                ThreadMarks.threadEnds();
                VIRTUAL_ENDED.increment();
            }
        };
    }

    /** A thread beside the connections' ({@link #startVirtual}: HTTP/2's streams, drains, tunnels): as {@link #counted}. */
    private static Runnable countedBeside(Runnable task) {
        return () -> {
            VIRTUAL_STARTED.increment();
            try {
                task.run();
            } finally {
                ThreadMarks.threadEnds(); // an HTTP/2 stream's exchange leaves its mark for the lines after it
                VIRTUAL_ENDED.increment();
            }
        };
    }

    private static ThreadFactory platformFactory(String prefix) {
        AtomicLong n = new AtomicLong();
        // Small stacks would save memory, but the default keeps deep filter chains safe; the comparison is about
        // how many threads can block at once, which the pool size already bounds.
        return r -> {
            Thread t = new Thread(r, prefix + "-" + n.getAndIncrement());
            t.setDaemon(true);
            return t;
        };
    }
}
