package io.loomgate.ratelimit;

/**
 * One route's way to the shared Redis store, with what decides when Redis does not answer in time
 * ({@code redis.failure-mode}): {@code open} asks the route's own local bucket for the same key and limit, so a client
 * that floods the gateway until Redis times out is still held to its limit on this gateway instance (Spring Cloud
 * Gateway would let every such request through); {@code deny} refuses the request. Each failure is counted and goes
 * to the shared {@link OutageLog}, which writes at most one line per interval; after a failure the shared
 * {@link HoldOff} keeps requests off Redis for a short pause (they are decided as if the call had failed, and counted
 * so), so a stalled Redis is not also flooded with reconnections.
 *
 * @param store    the shared store; not closed by this one
 * @param fallback the route's local buckets for {@code open} (and for their metrics); closed with this store
 */
record FallbackStore(RateLimitStore store, LocalStore fallback, RedisSettings.FailureMode mode, OutageLog outages,
                     HoldOff holdOff, RateLimitListener listener) implements RateLimitStore {

    @Override
    public Decision consume(String key, RateLimit limit) {
        HoldOff.Permit permit = holdOff.permit();
        if (permit == HoldOff.Permit.SKIP) {
            listener.storeFailed(store.name());
            outages.skipped();
            return withoutStore(key, limit);
        }
        Decision d;
        try {
            d = store.consume(key, limit);
        } catch (StoreUnavailableException e) {
            holdOff.failed(permit);
            listener.storeFailed(store.name());
            outages.failed(e);
            return withoutStore(key, limit);
        }
        holdOff.answered(permit);
        outages.answered();
        return d;
    }

    private Decision withoutStore(String key, RateLimit limit) {
        return mode == RedisSettings.FailureMode.DENY ? Decision.STORE_FAILED : fallback.consume(key, limit);
    }

    @Override
    public String name() {
        return store.name();
    }

    @Override
    public void close() {
        fallback.close();
    }
}
