package io.loomgate.ratelimit;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Allows the request when the store fails (as Spring Cloud Gateway does: a down Redis must not take the routes down
 * with it), counts every failure, and logs an outage once when it starts and once when the store answers again.
 */
final class FailOpenStore implements RateLimitStore {
    private static final Logger LOG = LoggerFactory.getLogger(FailOpenStore.class);

    private final RateLimitStore store;
    private final RateLimitListener listener;
    private final AtomicBoolean down = new AtomicBoolean();
    private final AtomicLong failuresThisOutage = new AtomicLong();

    FailOpenStore(RateLimitStore store, RateLimitListener listener) {
        this.store = store;
        this.listener = listener;
    }

    @Override
    public Decision consume(String key, RateLimit limit) {
        Decision d;
        try {
            d = store.consume(key, limit);
        } catch (StoreUnavailableException e) {
            listener.storeFailed(store.name());
            failuresThisOutage.incrementAndGet();
            if (down.compareAndSet(false, true)) {
                LOG.warn("rate limiting: {} store unavailable, allowing requests until it is back: {}", store.name(),
                        e.getMessage());
            }
            return Decision.FAILED_OPEN;
        }
        if (down.get() && down.compareAndSet(true, false)) {
            LOG.info("rate limiting: {} store answers again after {} failed calls; limits enforced", store.name(),
                    failuresThisOutage.getAndSet(0));
        }
        return d;
    }

    @Override
    public String name() {
        return store.name();
    }

    @Override
    public void close() {
        store.close();
    }
}
