package io.loomgate.ratelimit;

/**
 * Events of the rate limiter, for metrics. Called on the request's thread: implementations must be fast, must not
 * block and must not throw.
 */
public interface RateLimitListener {
    RateLimitListener NOOP = new RateLimitListener() {
    };

    /** What happened to one request that reached a {@code RequestRateLimiter} filter. */
    enum Outcome {
        /** Under the limit (or its key was empty and {@code deny-empty-key: false}). */
        ALLOWED,
        /** Over the limit: answered 429. */
        LIMITED,
        /** No key and {@code deny-empty-key: true}: answered 403. */
        EMPTY_KEY,
        /** The store failed, so the request was allowed (fail open). */
        STORE_ERROR
    }

    default void decided(String routeId, Outcome outcome) {
    }

    /** One failed store call; {@code store} is {@code redis}. */
    default void storeFailed(String store) {
    }
}
