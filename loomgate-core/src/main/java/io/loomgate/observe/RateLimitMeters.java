package io.loomgate.observe;

import io.loomgate.ratelimit.RateLimitListener;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Locale;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * The rate limiter's metrics: {@code loomgate_ratelimit_requests_total{route,outcome}} (outcome
 * {@code allowed|limited|empty_key|store_error}) and {@code loomgate_ratelimit_store_errors_total{store}}. Routes
 * come from the configuration, so the label set is bounded; each route's counters are registered once and cached.
 */
final class RateLimitMeters implements RateLimitListener {
    private static final Outcome[] OUTCOMES = Outcome.values();

    private final MeterRegistry registry;
    private final ConcurrentMap<String, LazyCounters> routes = new ConcurrentHashMap<>();
    private final ConcurrentMap<String, Counter> storeErrors = new ConcurrentHashMap<>();

    RateLimitMeters(MeterRegistry registry) {
        this.registry = registry;
    }

    @Override
    public void decided(String routeId, Outcome outcome) {
        String route = Labels.route(routeId);
        routes.computeIfAbsent(route, r -> new LazyCounters(OUTCOMES.length, i -> Counter
                .builder("loomgate.ratelimit.requests")
                .description("Requests that reached a RequestRateLimiter filter, by what it decided")
                .tag("route", r).tag("outcome", OUTCOMES[i].name().toLowerCase(Locale.ROOT))
                .register(registry))).get(outcome.ordinal()).increment();
    }

    @Override
    public void storeFailed(String store) {
        storeErrors.computeIfAbsent(store, s -> Counter.builder("loomgate.ratelimit.store.errors")
                .description("Rate-limit store calls that failed or timed out (the request was allowed)")
                .tag("store", s).register(registry)).increment();
    }

    /** Registers a store's error counter at zero, so a scrape shows it before the first failure. */
    void registerStore(String store) {
        storeErrors.computeIfAbsent(store, s -> Counter.builder("loomgate.ratelimit.store.errors")
                .description("Rate-limit store calls that failed or timed out (the request was allowed)")
                .tag("store", s).register(registry));
    }
}
