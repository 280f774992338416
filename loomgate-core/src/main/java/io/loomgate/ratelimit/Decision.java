package io.loomgate.ratelimit;

/**
 * What a store answered for one request.
 *
 * @param allowed   whether the request may pass
 * @param remaining whole tokens left in the bucket after this request; -1 when the store failed and nothing decided
 *                  in its place ({@code redis.failure-mode: deny})
 * @param evicted   keys of a local store this request's new key pushed out (for the evictions metric), else 0
 */
record Decision(boolean allowed, long remaining, int evicted) {
    /** The answer when the store could not be asked and {@code failure-mode} is {@code deny}: refuse (503). */
    static final Decision STORE_FAILED = new Decision(false, -1);

    Decision(boolean allowed, long remaining) {
        this(allowed, remaining, 0);
    }

    /** Whether the store failed with no answer in its place (the request is refused with 503, not 429). */
    boolean storeFailed() {
        return remaining < 0;
    }

    /**
     * Whole seconds until the bucket holds enough tokens for another request, at least 1; for {@code Retry-After}.
     */
    long retryAfterSeconds(RateLimit limit) {
        long missing = Math.max(1, limit.requestedTokens() - Math.max(0, remaining));
        return Math.max(1, (missing + limit.replenishRate() - 1) / limit.replenishRate());
    }
}
