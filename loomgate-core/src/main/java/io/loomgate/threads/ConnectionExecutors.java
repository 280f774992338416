package io.loomgate.threads;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The only place in Loomgate that makes threads. Everything else receives an executor (for connections) or asks here
 * for a named background thread (accept loops, timers). Keeping this in one class is what makes the
 * "virtual vs platform(200)" comparison honest: the same code runs with a different executor injected.
 */
public final class ConnectionExecutors {
    private ConnectionExecutors() {
    }

    /**
     * An executor that runs each submitted connection task on a thread of this model. Thread names start with
     * {@code prefix}; connection code renames its thread after its peer.
     */
    public static ExecutorService create(ThreadModel model, String prefix) {
        return switch (model) {
            case ThreadModel.Virtual v -> Executors.newThreadPerTaskExecutor(
                    Thread.ofVirtual().name(prefix + "-", 0).factory());
            case ThreadModel.Platform p -> Executors.newFixedThreadPool(p.threads(), platformFactory(prefix));
            case ThreadModel.Cached c -> Executors.newCachedThreadPool(platformFactory(prefix));
        };
    }

    /** Starts a named daemon platform thread for a long-running loop (accept loop, signal handling, timers). */
    public static Thread startDaemon(String name, Runnable task) {
        return Thread.ofPlatform().name(name).daemon(true).start(task);
    }

    /** Starts a named virtual thread for a short side task (the second direction of a tunnel, a drain). */
    public static Thread startVirtual(String name, Runnable task) {
        return Thread.ofVirtual().name(name).start(task);
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
