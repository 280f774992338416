package io.loomgate.upstream;

import java.util.List;

/**
 * What an upstream is made of, as configuration says: its id, its endpoints, the limits of each endpoint's pool, and
 * how requests are spread over the endpoints and kept away from bad ones. Pools are per endpoint and shared by every
 * upstream that names the same endpoint.
 */
public record UpstreamDefinition(String id, List<Endpoint> endpoints, PoolSettings settings, Balancing balancing) {
    public UpstreamDefinition {
        endpoints = List.copyOf(endpoints);
        if (endpoints.isEmpty()) {
            throw new IllegalArgumentException("upstream '" + id + "' has no endpoints");
        }
        if (balancing.weights().size() != endpoints.size()) {
            throw new IllegalArgumentException("upstream '" + id + "' has " + endpoints.size() + " endpoints but "
                    + balancing.weights().size() + " weights");
        }
    }

    /** Equal weights, least-request, no health checks, no outlier detection. */
    public UpstreamDefinition(String id, List<Endpoint> endpoints, PoolSettings settings) {
        this(id, endpoints, settings, Balancing.defaults(endpoints.size()));
    }
}
