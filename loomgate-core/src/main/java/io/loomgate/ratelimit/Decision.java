package io.loomgate.ratelimit;

/**
 * What a store answered for one request.
 *
 * @param allowed   whether the request may pass
 * @param remaining whole tokens left in the bucket after this request; -1 when the store failed (as SCG reports it)
 */
record Decision(boolean allowed, long remaining) {
    /** The answer when the store could not be asked: allow (fail open). */
    static final Decision FAILED_OPEN = new Decision(true, -1);

    boolean failedOpen() {
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
