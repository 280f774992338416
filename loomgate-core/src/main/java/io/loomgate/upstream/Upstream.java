package io.loomgate.upstream;

import java.util.List;

/**
 * Answers "which endpoints exist": a named set of endpoints, a load balancer to choose among them, and one pool per
 * endpoint. The pools may be shared with other upstreams naming the same endpoint. Immutable; thread-safe.
 */
public final class Upstream {
    private final String id;
    private final List<UpstreamPool> pools;
    private final List<Endpoint> endpoints;
    private final LoadBalancer balancer;

    Upstream(String id, List<UpstreamPool> pools, LoadBalancer balancer) {
        if (pools.isEmpty()) {
            throw new IllegalArgumentException("upstream '" + id + "' has no endpoints");
        }
        this.id = id;
        this.pools = List.copyOf(pools);
        this.endpoints = this.pools.stream().map(UpstreamPool::endpoint).toList();
        this.balancer = balancer;
    }

    public String id() {
        return id;
    }

    /** The pool of the endpoint the load balancer picks for the next request. */
    public UpstreamPool select() {
        return balancer.pick(pools);
    }

    /** One pool per endpoint, in the order the definition lists the endpoints. */
    public List<UpstreamPool> pools() {
        return pools;
    }

    /** In the order the definition lists them. */
    public List<Endpoint> endpoints() {
        return endpoints;
    }

    /**
     * Closes every idle connection; in-use ones are closed when released. The pools are closed for every upstream
     * sharing them, so this is for shutdown: {@link Upstreams#close()} is the usual way.
     */
    public void close() {
        pools.forEach(UpstreamPool::close);
    }

    @Override
    public String toString() {
        return "upstream '" + id + "' " + endpoints;
    }
}
