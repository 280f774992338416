/**
 * The {@code RequestRateLimiter} filter and its token-bucket stores: {@link io.loomgate.ratelimit.LocalStore} (one
 * gateway, in memory) and the Redis store of the optional module loomgate-redis (every gateway sharing one Redis,
 * with Spring Cloud Gateway's script and key scheme; found through {@link io.loomgate.ratelimit.RedisStores}). Below
 * {@code proxy}: it sees a request only through {@link io.loomgate.filter.FilterExchange}. The only package that
 * talks to Redis (through that module).
 *
 * <p>Flow of one request: {@link io.loomgate.ratelimit.KeyResolver} →
 * {@link io.loomgate.ratelimit.RateLimitStore#consume} (on a Redis error, the route's local
 * bucket or 503, by {@code redis.failure-mode}: {@link io.loomgate.ratelimit.FallbackStore}) → 429 with the limit headers, or proceed and add the headers to the
 * origin's response. Every decision is reported to a
 * {@link io.loomgate.ratelimit.RateLimitListener}, which {@code observe} turns into metrics.
 */
package io.loomgate.ratelimit;
