package io.loomgate.cli;

import io.loomgate.config.GatewayConfig;
import io.loomgate.config.RouteSpec;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What a new configuration drops that the running one has: whole routes, and the protective filters (and the
 * {@code RemoteAddr} predicate) of the routes it keeps. A file caught half-written looks exactly like this (the
 * routes after the cut are gone, and so are the filters of the route the cut fell in), so the reloader warns about
 * every such loss by name and the file watch waits longer before it applies one.
 */
final class ConfigLosses {
    /** Filters whose absence lets more requests through, or through with less checking. */
    static final Set<String> PROTECTIVE_FILTERS = Set.of("JwtAuth", "ApiKeyAuth", "IpFilter", "RequestSize",
            "RequestRateLimiter", "SecureHeaders");
    /** Predicates whose absence lets more clients match the route. */
    static final Set<String> PROTECTIVE_PREDICATES = Set.of("RemoteAddr");

    private ConfigLosses() {
    }

    /**
     * Each loss, in the running file's order: {@code route 'orders'} for a route gone, {@code filter JwtAuth of
     * route 'users'} for a protective filter a kept route no longer has (counted: one of two is a loss too).
     */
    static List<String> between(GatewayConfig running, GatewayConfig next) {
        Map<String, RouteSpec> kept = new HashMap<>();
        next.routes().forEach(r -> kept.put(r.id(), r));
        List<String> out = new ArrayList<>();
        for (RouteSpec before : running.routes()) {
            RouteSpec after = kept.get(before.id());
            if (after == null) {
                out.add("route '" + before.id() + "'");
                continue;
            }
            lost("filter", PROTECTIVE_FILTERS, before.filters(), after.filters(), before.id(), out);
            lost("predicate", PROTECTIVE_PREDICATES, before.predicates(), after.predicates(), before.id(), out);
        }
        return out;
    }

    private static void lost(String kind, Set<String> protective, List<RouteSpec.ComponentSpec> before,
                             List<RouteSpec.ComponentSpec> after, String route, List<String> out) {
        Map<String, Integer> left = new HashMap<>();
        after.forEach(c -> left.merge(c.name(), 1, Integer::sum));
        for (RouteSpec.ComponentSpec c : before) {
            if (!protective.contains(c.name())) {
                continue;
            }
            int n = left.getOrDefault(c.name(), 0);
            if (n > 0) {
                left.put(c.name(), n - 1);
            } else {
                out.add(kind + " " + c.name() + " of route '" + route + "'");
            }
        }
    }
}
