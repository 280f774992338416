package io.loomgate.ratelimit;

/**
 * One route's way to the shared Redis store, with what decides when Redis does not answer in time
 * ({@code redis.failure-mode}): {@code open} asks the route's own local bucket for the same key and limit, so a client
 * that floods the gateway until Redis times out is still held to its limit on this gateway instance (Spring Cloud
 * Gateway would let every such request through); {@code deny} refuses the request. Each failure is counted and goes
 * to the shared {@link OutageLog}, which writes at most one line per interval.
 */
final class FallbackStore implements RateLimitStore {
    private final RateLimitStore store;
    private final LocalStore fallback;
    private final RedisSettings.FailureMode mode;
    private final OutageLog outages;
    private final RateLimitListener listener;

    /**
     * @param store    the shared store; not closed by this one
     * @param fallback the route's local buckets for {@code open}; closed with this store
     */
    FallbackStore(RateLimitStore store, LocalStore fallback, RedisSettings.FailureMode mode, OutageLog outages,
                  RateLimitListener listener) {
        this.store = store;
        this.fallback = fallback;
        this.mode = mode;
        this.outages = outages;
        this.listener = listener;
    }

    @Override
    public Decision consume(String key, RateLimit limit) {
        Decision d;
        try {
            d = store.consume(key, limit);
        } catch (StoreUnavailableException e) {
            listener.storeFailed(store.name());
            outages.failed(e);
            return mode == RedisSettings.FailureMode.DENY ? Decision.STORE_FAILED : fallback.consume(key, limit);
        }
        outages.answered();
        return d;
    }

    @Override
    public String name() {
        return store.name();
    }

    /** The route's local buckets, for their metrics. */
    LocalStore fallback() {
        return fallback;
    }

    @Override
    public void close() {
        fallback.close();
    }
}
