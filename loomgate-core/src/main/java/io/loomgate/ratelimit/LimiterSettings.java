package io.loomgate.ratelimit;

/**
 * What decides a {@code RequestRateLimiter}'s local buckets, by which a reloading gateway keeps them
 * ({@link RateLimiting#retain}): the route whose limiter it is (its id; null for one every route shares, written in
 * {@code default-filters}), the store's kind ({@code local}, or {@code redis}, whose local buckets stand in during an
 * outage), the rate, burst and cost, the key resolver as written, and the key capacity. A limiter whose settings
 * changed starts with full buckets: they were counted under the old ones; so does a renamed route's. The route is
 * part of it since session 58: before, two routes with identical arguments were told apart by their order only, and a
 * reload that removed the first handed the second its buckets.
 */
record LimiterSettings(String route, String kind, RateLimit limit, String resolver, int maxKeys) {
}
