package io.loomgate.observe;

import io.loomgate.ratelimit.RateLimitListener;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Locale;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;

/**
 * The rate limiter's metrics: {@code loomgate_ratelimit_requests_total{route,outcome}} (outcome
 * {@code allowed|limited|empty_key|store_error}), {@code loomgate_ratelimit_store_errors_total{store}},
 * {@code loomgate_ratelimit_evictions_total{route}} (keys pushed out of a full local store) and
 * {@code loomgate_ratelimit_keys} (keys the local stores hold now). Routes come from the configuration, so the label
 * set is bounded; the keys themselves come from clients and are never a label. Each route's counters are registered
 * once and cached.
 */
final class RateLimitMeters implements RateLimitListener {
    private static final Outcome[] OUTCOMES = Outcome.values();

    private final MeterRegistry registry;
    private final ConcurrentMap<String, LazyCounters> routes = new ConcurrentHashMap<>();
    private final ConcurrentMap<String, Counter> storeErrors = new ConcurrentHashMap<>();
    private final ConcurrentMap<String, Counter> evictions = new ConcurrentHashMap<>();
    /** The keys of the gateway's rate limiting; replaced if a second one is made (tests), never a second gauge. */
    private final AtomicReference<LongSupplier> keys = new AtomicReference<>(() -> 0);

    RateLimitMeters(MeterRegistry registry) {
        this.registry = registry;
        Gauge.builder("loomgate.ratelimit.keys", keys, k -> k.get().getAsLong())
                .description("Keys held now in the local rate-limit stores (each store holds at most its max-keys)")
                .register(registry);
    }

    @Override
    public void evicted(String routeId, int count) {
        evictions.computeIfAbsent(Labels.route(routeId), r -> Counter.builder("loomgate.ratelimit.evictions")
                .description("Least recently used keys pushed out of a full local rate-limit store by a new key")
                .tag("route", r).register(registry)).increment(count);
    }

    @Override
    public void localKeys(LongSupplier keys) {
        this.keys.set(keys);
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
                .description("Rate-limit store calls that failed or timed out (failure-mode decided the request)")
                .tag("store", s).register(registry)).increment();
    }

    /** Registers a store's error counter at zero, so a scrape shows it before the first failure. */
    void registerStore(String store) {
        storeErrors.computeIfAbsent(store, s -> Counter.builder("loomgate.ratelimit.store.errors")
                .description("Rate-limit store calls that failed or timed out (failure-mode decided the request)")
                .tag("store", s).register(registry));
    }
}
