package io.loomgate.upstream;

import io.loomgate.threads.ConnectionExecutors;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The one background thread of an {@link Upstreams}: runs {@link UpstreamPool#cleanup()} on every pool in use now
 * (the set changes when DNS does), then sleeps until the soonest deadline any of them returned. Lifecycle:
 * {@link #start()} once, {@link #stop()} wakes it and it exits; stop is idempotent and does not wait for the thread.
 */
final class PoolSweeper implements Runnable {
    /** Floor on the sleep so a pool that keeps answering "now" cannot make the sweeper spin. */
    private static final long MIN_SLEEP_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

    private final Supplier<List<UpstreamPool>> pools;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition stopped = lock.newCondition();
    private boolean stopping; // guarded by lock
    private Thread thread;

    PoolSweeper(Supplier<List<UpstreamPool>> pools) {
        this.pools = pools;
    }

    void start() {
        thread = ConnectionExecutors.startDaemon("loomgate-pool-sweeper", this);
    }

    void stop() {
        lock.lock();
        try {
            stopping = true;
            stopped.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** The sweeper thread, for tests that wait for it to end; null before start. */
    Thread thread() {
        return thread;
    }

    @Override
    public void run() {
        while (true) {
            long sleep = Long.MAX_VALUE;
            for (UpstreamPool pool : pools.get()) {
                sleep = Math.min(sleep, pool.cleanup());
            }
            lock.lock();
            try {
                long remaining = Math.max(sleep, MIN_SLEEP_NANOS);
                while (!stopping && remaining > 0) {
                    remaining = stopped.awaitNanos(remaining);
                }
                if (stopping) {
                    return;
                }
            } catch (InterruptedException e) {
                return;
            } finally {
                lock.unlock();
            }
        }
    }
}
