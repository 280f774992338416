package io.loomgate.ratelimit;

/** Where the token buckets live. Shared by every request of the routes that use it; safe for concurrent use. */
interface RateLimitStore extends AutoCloseable {

    /**
     * Takes {@code limit.requestedTokens()} from the bucket of {@code key}, if it holds that many.
     *
     * @throws StoreUnavailableException when the store cannot answer within its time limit
     */
    Decision consume(String key, RateLimit limit);

    /** What the store is, for logs and metric labels: {@code local} or {@code redis}. */
    String name();

    @Override
    default void close() {
    }
}
