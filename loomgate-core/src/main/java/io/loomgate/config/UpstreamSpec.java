package io.loomgate.config;

import io.loomgate.upstream.Balancing;
import io.loomgate.upstream.PoolSettings;
import java.net.URI;
import java.time.Duration;
import java.util.List;

/**
 * One named service of the top-level {@code upstreams:} section, as written, validated: routes reference it by
 * {@code uri: lb://NAME} (Spring Cloud Gateway's spelling), and every route on it shares its one upstream: one pool
 * per endpoint, one health checker, one outlier detector, and one circuit breaker when it has one.
 *
 * @param name       the key under {@code upstreams:}; it labels the upstream's metrics and {@code /routes}
 * @param line       where it is written (for messages)
 * @param uris       its origins, from {@code uri} or {@code uris}
 * @param pool       {@code pool:}: its endpoints' pool limits, each key defaulting to the {@code upstream:} section's
 * @param balancing  the balancer, the endpoints' weights (one per uri), health checks and outlier detection
 * @param dnsRefresh how often host names among the uris are resolved again (zero: off)
 * @param breaker    {@code circuit-breaker:}, a {@code CircuitBreaker} filter every route on the upstream holds (one
 *                   filter, so one breaker), after the route's own filters; null when none
 */
public record UpstreamSpec(String name, int line, List<URI> uris, PoolSettings pool, Balancing balancing,
                           Duration dnsRefresh, RouteSpec.ComponentSpec breaker) {

    public UpstreamSpec {
        uris = List.copyOf(uris);
    }
}
