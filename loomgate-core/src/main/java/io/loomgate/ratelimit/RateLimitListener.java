package io.loomgate.ratelimit;

import java.util.function.LongSupplier;

/**
 * Events of the rate limiter, for metrics. Called on the request's thread: implementations must be fast, must not
 * block and must not throw.
 */
public interface RateLimitListener {
    RateLimitListener NOOP = new RateLimitListener() {
    };

    /**
     * The exchange attribute ({@code FilterExchange.attributes()}) where the filter leaves its decision, the
     * {@link Outcome} in lower case ({@code allowed}, {@code limited}, ...), for a tracer's span.
     */
    String DECISION_ATTRIBUTE = "loomgate.ratelimit.decision";

    /** What happened to one request that reached a {@code RequestRateLimiter} filter. */
    enum Outcome {
        /** Under the limit (or its key was empty and {@code deny-empty-key: false}). */
        ALLOWED,
        /** Over the limit: answered 429. */
        LIMITED,
        /** No key and {@code deny-empty-key: true}: answered 403. */
        EMPTY_KEY,
        /**
         * The store failed and {@code redis.failure-mode: deny}: answered 503. (With {@code open}, the route's local
         * bucket decides, and the outcome is {@link #ALLOWED} or {@link #LIMITED}.)
         */
        STORE_ERROR;

        /** The decision as a span attribute writes it. */
        public String label() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    default void decided(String routeId, Outcome outcome) {
    }

    /** One failed store call; {@code store} is {@code redis}. */
    default void storeFailed(String store) {
    }

    /** A new key of a request on {@code routeId} pushed {@code count} least recently used keys out of a full store. */
    default void evicted(String routeId, int count) {
    }

    /** Once, when the rate limiting is made: how to read the keys its local stores hold now (for a gauge). */
    default void localKeys(LongSupplier keys) {
    }
}
