package io.loomgate.ratelimit;

/**
 * One route's token bucket, in Spring Cloud Gateway's terms: {@code burstCapacity} tokens at most, refilled at
 * {@code replenishRate} tokens per second, {@code requestedTokens} taken per request.
 *
 * @param replenishRate   tokens per second, at least 1
 * @param burstCapacity   bucket size, at least {@code replenishRate} (as SCG requires) and {@code requestedTokens}
 * @param requestedTokens cost of one request, at least 1
 */
record RateLimit(int replenishRate, int burstCapacity, int requestedTokens) {

    RateLimit {
        if (replenishRate < 1) {
            throw new IllegalArgumentException("replenish-rate: expected an integer >= 1, got " + replenishRate);
        }
        if (requestedTokens < 1) {
            throw new IllegalArgumentException("requested-tokens: expected an integer >= 1, got " + requestedTokens);
        }
        if (burstCapacity < replenishRate) {
            throw new IllegalArgumentException("burst-capacity (" + burstCapacity
                    + ") must be at least replenish-rate (" + replenishRate + ")");
        }
        if (burstCapacity < requestedTokens) {
            throw new IllegalArgumentException("burst-capacity (" + burstCapacity
                    + ") must be at least requested-tokens (" + requestedTokens + "), or no request could ever pass");
        }
    }

    /** Seconds an idle bucket takes to fill up again; after twice that, its state is forgotten (as SCG's TTL). */
    double fillSeconds() {
        return (double) burstCapacity / replenishRate;
    }
}
