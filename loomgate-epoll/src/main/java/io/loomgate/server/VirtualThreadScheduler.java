package io.loomgate.server;

import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinWorkerThread;

/**
 * The JDK's scheduler of virtual threads, asked one question by the {@link EpollPoller}'s busy loop: is anything
 * queued to run? Only then may the loop block in {@code epoll_wait} on its carrier without holding anything up.
 *
 * <p>How it is found without reflection: the default scheduler is a {@link ForkJoinPool} whose workers are the
 * carrier threads ({@code jdk.internal.misc.CarrierThread}, a {@link ForkJoinWorkerThread}), and a worker names its
 * pool through public API ({@link ForkJoinWorkerThread#getPool()}). The carriers are found once, among the live
 * threads; at least one exists when a virtual thread asks.
 */
final class VirtualThreadScheduler {
    private static final String CARRIER_CLASS = "jdk.internal.misc.CarrierThread";

    private final ForkJoinPool pool;

    private VirtualThreadScheduler(ForkJoinPool pool) {
        this.pool = pool;
    }

    /**
     * The scheduler carrying the calling virtual thread, or null when it cannot be found (not on a virtual thread, a
     * JDK whose carriers are not a pool's workers): the caller then never blocks on a carrier.
     */
    static VirtualThreadScheduler find() {
        if (!Thread.currentThread().isVirtual()) {
            return null;
        }
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t instanceof ForkJoinWorkerThread worker && t.getClass().getName().equals(CARRIER_CLASS)) {
                return new VirtualThreadScheduler(worker.getPool());
            }
        }
        return null;
    }

    /**
     * Whether a virtual thread made runnable from outside the carriers (a platform thread: a timer's expiry, the
     * watchdog's cut, the idle loop's unpark) waits in the scheduler's submission queues. A carrier that keeps
     * running a thread which yields runs its own queue and that thread again before it looks at these.
     */
    boolean submissionsWaiting() {
        return pool.hasQueuedSubmissions();
    }

    /**
     * Whether no task waits in any carrier's own queue. With {@link #submissionsWaiting()} false: nothing waits to
     * run now. A snapshot: a platform thread may submit one right after; the poller's bounded wait is what limits how
     * long that one waits.
     */
    boolean carrierQueuesEmpty() {
        return pool.getQueuedTaskCount() == 0;
    }
}
