package io.loomgate.upstream;

import java.util.List;

/**
 * What an upstream is made of, as configuration says: its id, its endpoints (round-robin among them) and the limits
 * of each endpoint's pool. Pools are per endpoint and shared by every upstream that names the same endpoint.
 */
public record UpstreamDefinition(String id, List<Endpoint> endpoints, PoolSettings settings) {
    public UpstreamDefinition {
        endpoints = List.copyOf(endpoints);
        if (endpoints.isEmpty()) {
            throw new IllegalArgumentException("upstream '" + id + "' has no endpoints");
        }
    }
}
