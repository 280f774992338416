package io.loomgate.proxy;

import io.loomgate.http.RequestHead;
import io.loomgate.route.Route;
import io.loomgate.route.RouteMatch;
import io.loomgate.route.RouteTable;
import io.loomgate.upstream.Upstream;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The proxy's runtime routing table: every route bound to its upstream and admission ({@link BoundRoute}), resolved
 * once when the table is built. Immutable, so a live reload can build a new one and swap it in whole
 * ({@link ProxyHandler#swapRoutes}); a request keeps the binding it matched until it ends.
 */
public final class BoundRoutes {
    private final RouteTable table;
    private final Map<Route, BoundRoute> bound;
    private final int generation;

    private BoundRoutes(RouteTable table, Map<Route, BoundRoute> bound, int generation) {
        this.table = table;
        this.bound = bound;
        this.generation = generation;
    }

    /** A match: the bound route and the template variables its predicates captured. */
    record Match(BoundRoute route, Map<String, String> variables) {
    }

    /**
     * Binds every route of {@code table} to the upstream {@code upstreamOf} gives for it.
     *
     * @throws IllegalArgumentException naming the route, when {@code upstreamOf} has no upstream for it
     */
    public static BoundRoutes bind(RouteTable table, Function<Route, Upstream> upstreamOf) {
        return bind(table, upstreamOf, 1);
    }

    /**
     * As {@link #bind(RouteTable, Function)}, stamped with the configuration generation it serves: 1 for the one a
     * gateway starts with, one more for each applied reload ({@code loomgate_config_generation}). Each exchange
     * reports the generation of the table it matched against, so one that straddles a reload can be told apart.
     */
    public static BoundRoutes bind(RouteTable table, Function<Route, Upstream> upstreamOf, int generation) {
        Map<Route, BoundRoute> bound = new IdentityHashMap<>();
        BoundRoutes routes = new BoundRoutes(table, bound, generation); // filled before anyone else sees it
        for (Route r : table.routes()) {
            Upstream upstream = upstreamOf.apply(r);
            if (upstream == null) {
                throw new IllegalArgumentException("route '" + r.id() + "' has no upstream");
            }
            bound.put(r, new BoundRoute(r, upstream, new RouteAdmission(r.maxInFlight(), r.queueTimeout()), routes));
        }
        return routes;
    }

    /**
     * The configuration generation this table serves (1 at start, one more per applied reload). An int: a reload a
     * second for 68 years, and 4 bytes fit the access log's entry where 8 made it 8 bytes bigger per logged request.
     */
    public int generation() {
        return generation;
    }

    /** The first route that matches, bound; null if none does. */
    Match match(RequestHead request, java.net.InetAddress clientIp) {
        RouteMatch m = table.match(request, clientIp);
        return m == null ? null : new Match(bound.get(m.route()), m.variables());
    }

    /** The routes in match order. */
    public List<Route> routes() {
        return table.routes();
    }

    /** The upstream this route forwards to; null if the route is not in this table. */
    public Upstream upstreamOf(Route route) {
        BoundRoute b = bound.get(route);
        return b == null ? null : b.upstream();
    }
}
