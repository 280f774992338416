package io.loomgate.observe;

import io.loomgate.upstream.Endpoint;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * The meters of one endpoint's pool, fed by {@code upstream.PoolListener} (pools are per endpoint, shared by every
 * upstream naming it, so these carry an {@code endpoint} label rather than an upstream one).
 */
final class EndpointMeters {
    final Timer connects;
    final Counter connectFailures;
    final Counter reused;
    private final ConcurrentMap<String, Counter> evictions = new ConcurrentHashMap<>();
    private final MeterRegistry registry;
    private final String endpoint;

    EndpointMeters(MeterRegistry registry, Endpoint endpoint) {
        this.registry = registry;
        this.endpoint = endpoint.label();
        connects = Timer.builder("loomgate.upstream.connect")
                .description("New upstream connections dialled, and how long the dial took")
                .tag("endpoint", this.endpoint).register(registry);
        connectFailures = Counter.builder("loomgate.upstream.connect.failures")
                .description("Upstream dials that failed (refused, unreachable, timed out)")
                .tag("endpoint", this.endpoint).register(registry);
        reused = Counter.builder("loomgate.upstream.reused")
                .description("Idle upstream connections handed out again")
                .tag("endpoint", this.endpoint).register(registry);
    }

    /** Every meter registered for the endpoint, for removing them when it is gone. */
    List<Meter> meters() {
        List<Meter> all = new ArrayList<>(List.of(connects, connectFailures, reused));
        all.addAll(evictions.values());
        return all;
    }

    /** Reasons are a small closed set named by the pool (idle-timeout, closed-by-peer, discarded, ...). */
    void evicted(String reason) {
        String r = reason == null ? "unknown" : reason;
        Counter c = evictions.get(r);
        if (c == null) {
            c = evictions.computeIfAbsent(r, k -> Counter.builder("loomgate.upstream.evictions")
                    .description("Upstream connections that left the pool for good, by reason")
                    .tag("endpoint", endpoint).tag("reason", k).register(registry));
        }
        c.increment();
    }
}
