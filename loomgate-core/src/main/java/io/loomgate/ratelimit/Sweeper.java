package io.loomgate.ratelimit;

import java.lang.ref.WeakReference;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs every local store's {@link LocalStore#sweep} on one daemon platform thread, off the request path, so idle keys
 * leave even when no request comes (before, a sweep ran only on a request's thread). A store is held weakly: the
 * routes of a replaced configuration are not closed one by one, and their stores must not live on for the schedule;
 * the task of a store that is gone cancels itself.
 */
final class Sweeper {
    private static final Logger LOG = LoggerFactory.getLogger(Sweeper.class);
    static final Sweeper SHARED = new Sweeper();

    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "ratelimit-sweeper");
        t.setDaemon(true);
        return t;
    });

    private Sweeper() {
    }

    /** A scheduled sweep of one store, to cancel when the store closes. */
    interface Handle {
        void cancel();
    }

    Handle every(long intervalNanos, LocalStore store) {
        WeakReference<LocalStore> ref = new WeakReference<>(store);
        AtomicReference<ScheduledFuture<?>> self = new AtomicReference<>();
        ScheduledFuture<?> f = timer.scheduleWithFixedDelay(() -> {
            LocalStore s = ref.get();
            if (s == null) {
                ScheduledFuture<?> mine = self.get();
                if (mine != null) {
                    mine.cancel(false);
                }
                return;
            }
            try {
                s.sweep();
            } catch (RuntimeException e) { // one failed pass must not end the schedule
                LOG.warn("rate limiting: sweeping idle keys failed: {}", e.toString());
            }
        }, intervalNanos, intervalNanos, TimeUnit.NANOSECONDS);
        self.set(f);
        return () -> f.cancel(false);
    }
}
