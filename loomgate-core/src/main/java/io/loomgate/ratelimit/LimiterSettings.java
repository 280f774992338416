package io.loomgate.ratelimit;

/**
 * What decides a {@code RequestRateLimiter}'s local buckets, by which a reloading gateway keeps them
 * ({@link RateLimiting#retain}): the store's kind ({@code local}, or {@code redis}, whose local buckets stand in
 * during an outage), the rate, burst and cost, the key resolver as written, and the key capacity. A limiter whose
 * settings changed starts with full buckets: they were counted under the old ones.
 */
record LimiterSettings(String kind, RateLimit limit, String resolver, int maxKeys) {
}
