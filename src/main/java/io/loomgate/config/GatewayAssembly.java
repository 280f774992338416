package io.loomgate.config;

import io.loomgate.route.RouteTable;
import io.loomgate.upstream.UpstreamDefinition;
import java.util.List;

/**
 * The runtime objects a configuration describes: the route table (predicates and filters built through the
 * registries) and the upstream definitions (one per route, id = route id).
 */
public record GatewayAssembly(RouteTable routes, List<UpstreamDefinition> upstreams) {

    /** Builds them; fails with the file and line of the offending route, predicate or filter. */
    public static GatewayAssembly build(GatewayConfig config) throws ConfigException {
        throw new UnsupportedOperationException("stub");
    }
}
