package io.loomgate.ratelimit;

import io.loomgate.filter.FilterChain;
import io.loomgate.filter.FilterExchange;
import io.loomgate.filter.GatewayFilter;
import io.loomgate.http.Headers;
import io.loomgate.http.ResponseHead;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * Spring Cloud Gateway's {@code RequestRateLimiter}: resolve the request's key, take tokens from its bucket, and
 * either answer 429 (the origin never sees the request) or proceed. Both answers carry SCG's headers
 * ({@code X-RateLimit-Remaining}, {@code -Replenish-Rate}, {@code -Burst-Capacity}, {@code -Requested-Tokens}); the
 * 429 adds {@code Retry-After}. A request without a key gets 403 when {@code denyEmptyKey}, else passes unlimited.
 * When the Redis store fails, {@code redis.failure-mode} decides ({@link FallbackStore}): the route's local bucket,
 * or 503 with {@code Retry-After: 1} (not 429: the client was not found over its limit; the limiter could not tell).
 */
record RequestRateLimiterFilter(RateLimit limit, KeyResolver keys, boolean denyEmptyKey, RateLimitStore store,
                                RateLimitListener listener) implements GatewayFilter {
    static final String REMAINING = "X-RateLimit-Remaining";
    static final String REPLENISH_RATE = "X-RateLimit-Replenish-Rate";
    static final String BURST_CAPACITY = "X-RateLimit-Burst-Capacity";
    static final String REQUESTED_TOKENS = "X-RateLimit-Requested-Tokens";
    private static final byte[] LIMITED_BODY = "429 Too Many Requests: rate limit exceeded\n"
            .getBytes(StandardCharsets.UTF_8);
    private static final byte[] STORE_FAILED_BODY = "503 Service Unavailable: the rate limiter cannot decide now\n"
            .getBytes(StandardCharsets.UTF_8);
    private static final byte[] EMPTY_KEY_BODY = "403 Forbidden: no rate-limit key in the request\n"
            .getBytes(StandardCharsets.UTF_8);

    @Override
    public void filter(FilterExchange exchange, FilterChain chain) throws IOException {
        String key = keys.resolve(exchange);
        if (key == null || key.isEmpty()) {
            if (denyEmptyKey) {
                decided(exchange, RateLimitListener.Outcome.EMPTY_KEY);
                exchange.replyLocally(plainText(403), EMPTY_KEY_BODY);
            } else {
                decided(exchange, RateLimitListener.Outcome.ALLOWED);
                chain.proceed(exchange);
            }
            return;
        }
        Decision d = store.consume(key, limit);
        if (d.evicted() > 0) {
            listener.evicted(exchange.routeId(), d.evicted());
        }
        decided(exchange, d.storeFailed() ? RateLimitListener.Outcome.STORE_ERROR
                : d.allowed() ? RateLimitListener.Outcome.ALLOWED : RateLimitListener.Outcome.LIMITED);
        if (d.storeFailed()) {
            ResponseHead head = plainText(503);
            head.headers().set("Retry-After", "1");
            exchange.replyLocally(head, STORE_FAILED_BODY);
            return;
        }
        if (!d.allowed()) {
            ResponseHead head = plainText(429);
            addHeaders(head.headers(), d);
            head.headers().set("Retry-After", Long.toString(d.retryAfterSeconds(limit)));
            exchange.replyLocally(head, LIMITED_BODY);
            return;
        }
        chain.proceed(exchange);
        ResponseHead response = exchange.response();
        if (response != null) {
            addHeaders(response.headers(), d);
        }
    }

    /** To the metrics, and on the exchange for a tracer ({@link RateLimitListener#DECISION_ATTRIBUTE}). */
    private void decided(FilterExchange exchange, RateLimitListener.Outcome outcome) {
        listener.decided(exchange.routeId(), outcome);
        exchange.attributes().put(RateLimitListener.DECISION_ATTRIBUTE, outcome.label());
    }

    private void addHeaders(Headers h, Decision d) {
        h.set(REMAINING, Long.toString(d.remaining()));
        h.set(REPLENISH_RATE, Integer.toString(limit.replenishRate()));
        h.set(BURST_CAPACITY, Integer.toString(limit.burstCapacity()));
        h.set(REQUESTED_TOKENS, Integer.toString(limit.requestedTokens()));
    }

    private static ResponseHead plainText(int status) {
        ResponseHead head = ResponseHead.of(status);
        head.headers().set("Content-Type", "text/plain; charset=utf-8");
        return head;
    }
}
