package io.loomgate.observe;

import io.loomgate.proxy.ExchangeView;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * The response cache's metrics ({@code LocalResponseCache}): {@code loomgate_cache_requests_total{route,outcome}}
 * (outcome {@code hit|miss|revalidate}; requests the cache passes by, not GET or {@code no-store}, are not counted)
 * and {@code loomgate_cache_evictions_total{route}} (entries pushed out of a full cache). The filter leaves both in
 * exchange attributes, read here when the exchange ends, so the filter package needs no metrics and this one no
 * filters; the attribute names are the filter's (LocalResponseCacheFilter).
 */
final class CacheMeters {
    static final String OUTCOME = "loomgate.cache.outcome";
    static final String EVICTIONS = "loomgate.cache.evictions";

    private final MeterRegistry registry;
    private final ConcurrentMap<String, Counter> requests = new ConcurrentHashMap<>();
    private final ConcurrentMap<String, Counter> evictions = new ConcurrentHashMap<>();

    CacheMeters(MeterRegistry registry) {
        this.registry = registry;
    }

    void finished(String route, ExchangeView exchange) {
        if (!(exchange.attribute(OUTCOME) instanceof String outcome)) {
            return;
        }
        requests.computeIfAbsent(route + '\n' + outcome, k -> Counter.builder("loomgate.cache.requests")
                .description("Requests a LocalResponseCache looked up: hit (served from memory), miss (sent to the "
                        + "origin), revalidate (the client's no-cache sent it to the origin)")
                .tag("route", route).tag("outcome", outcome).register(registry)).increment();
        if (exchange.attribute(EVICTIONS) instanceof Integer n) {
            evictions.computeIfAbsent(route, r -> Counter.builder("loomgate.cache.evictions")
                    .description("Responses pushed out of a full LocalResponseCache (least recently used first)")
                    .tag("route", r).register(registry)).increment(n);
        }
    }
}
