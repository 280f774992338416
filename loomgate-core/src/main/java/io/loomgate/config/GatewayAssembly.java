package io.loomgate.config;

import io.loomgate.extension.ExtensionFactory;
import io.loomgate.extension.ExtensionRegistry;
import io.loomgate.filter.ArgumentException;
import io.loomgate.filter.FilterRegistry;
import io.loomgate.filter.GatewayFilter;
import io.loomgate.ratelimit.RateLimitListener;
import io.loomgate.ratelimit.RateLimiting;
import io.loomgate.resilience.CircuitBreakerFilterFactory;
import io.loomgate.resilience.RetryFilter;
import io.loomgate.resilience.RetryFilterFactory;
import io.loomgate.route.PredicateRegistry;
import io.loomgate.route.Route;
import io.loomgate.route.RoutePredicate;
import io.loomgate.route.RouteTable;
import io.loomgate.security.JwksKeySets;
import io.loomgate.security.SecurityFilters;
import io.loomgate.upstream.Endpoint;
import io.loomgate.upstream.UpstreamDefinition;
import java.net.URI;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The runtime objects a configuration describes: the route table (predicates and filters built through the
 * registries) and, for each route, the upstream definition its {@code uri}/{@code uris} make. An upstream is named
 * after the route that declares it (its name labels metrics and {@code /routes}); the pairing is this map, so a
 * route never carries an upstream id.
 *
 * @param upstreamOf each route of {@code routes}, with the upstream that serves it, in file order
 */
public record GatewayAssembly(RouteTable routes, Map<Route, UpstreamDefinition> upstreamOf) {

    public GatewayAssembly {
        upstreamOf = Collections.unmodifiableMap(new LinkedHashMap<>(upstreamOf));
    }

    /** Every upstream definition, in file order. */
    public List<UpstreamDefinition> upstreams() {
        return List.copyOf(upstreamOf.values());
    }

    /** Builds them with the built-in predicates and filters; fails with the file and line of the offending route,
     * predicate or filter. {@code RequestRateLimiter} is built with no listener and a Redis pool nobody closes
     * (it dials nothing until a request comes): this is for checking a configuration; a gateway that serves owns a
     * {@link RateLimiting} and passes its factory to {@link #build(GatewayConfig, PredicateRegistry, FilterRegistry)}.
     */
    public static GatewayAssembly build(GatewayConfig config) throws ConfigException {
        return build(config, PredicateRegistry.withBuiltIns(), gatewayFilters()
                .register(new RateLimiting(config.redis(), RateLimitListener.NOOP).filterFactory()));
    }

    /**
     * The filter package's built-ins plus the gateway's filters that live in packages above it and need nothing
     * from the serving gateway ({@code Retry}, {@code CircuitBreaker}, and the security filters of
     * {@code io.loomgate.security}); {@code RequestRateLimiter} is added by whoever owns its Redis pool. Each call
     * makes new factories, so breakers are shared within one configuration.
     */
    public static FilterRegistry gatewayFilters() {
        return gatewayFilters(new JwksKeySets());
    }

    /** As {@link #gatewayFilters()}, with {@code JwtAuth} taking JWKS keys from a gateway's kept sources. */
    public static FilterRegistry gatewayFilters(JwksKeySets keySets) {
        FilterRegistry registry = FilterRegistry.withBuiltIns().register(new RetryFilterFactory())
                .register(new CircuitBreakerFilterFactory());
        SecurityFilters.all(keySets).forEach(registry::register);
        return registry;
    }

    /**
     * Builds them with these registries, which may hold user factories besides the built-ins.
     *
     * @throws ConfigException naming the route and the line of the predicate or filter: unknown name (with a
     *                         did-you-mean), surplus or unknown arguments, or a value its factory refuses
     */
    public static GatewayAssembly build(GatewayConfig config, PredicateRegistry predicates, FilterRegistry filters)
            throws ConfigException {
        String file = config.source() == null ? "<config>" : config.source().toString();
        Map<Route, UpstreamDefinition> upstreamOf = new LinkedHashMap<>();
        Map<RouteSpec.ComponentSpec, GatewayFilter> shared = new IdentityHashMap<>();
        for (RouteSpec spec : config.routes()) {
            UpstreamDefinition upstream = new UpstreamDefinition(spec.id(),
                    endpoints(file, spec, config.upstreamDefaults().http2()), config.upstreamDefaults(),
                    spec.balancing(), spec.dnsRefresh());
            if (upstreamOf.put(route(file, spec, predicates, filters, shared), upstream) != null) {
                throw new ConfigException(file, spec.line(), "routes", "duplicate route id '" + spec.id() + "'");
            }
        }
        try {
            return new GatewayAssembly(new RouteTable(new ArrayList<>(upstreamOf.keySet())), upstreamOf);
        } catch (IllegalArgumentException e) {
            throw new ConfigException(file, 0, "routes", e.getMessage());
        }
    }

    /**
     * @param shared filters already built for a spec object that several routes hold (default-filters, cors): built
     *               once, so a JwtAuth there keeps one key set and one token cache for all routes
     */
    private static Route route(String file, RouteSpec spec, PredicateRegistry predicates, FilterRegistry filters,
                               Map<RouteSpec.ComponentSpec, GatewayFilter> shared) throws ConfigException {
        String context = "route '" + spec.id() + "'";
        List<RoutePredicate> built = new ArrayList<>();
        for (RouteSpec.ComponentSpec c : spec.predicates()) {
            built.add(create(file, context, c, predicates));
        }
        List<GatewayFilter> chain = new ArrayList<>();
        for (RouteSpec.ComponentSpec c : spec.filters()) {
            GatewayFilter already = shared.get(c);
            if (already != null) {
                chain.add(already);
                continue;
            }
            GatewayFilter filter = create(file, c.shared() ? c.context() : context, c, filters);
            chain.add(filter);
            if (c.shared()) {
                shared.put(c, filter);
            }
            if (chain.get(chain.size() - 1) instanceof RetryFilter
                    && chain.stream().filter(RetryFilter.class::isInstance).count() > 1) {
                throw new ConfigException(file, c.line(), context, "has more than one Retry filter; a route retries "
                        + "by one policy");
            }
        }
        return new Route(spec.id(), spec.order(), built, chain, spec.timeout(), spec.preserveHost(),
                spec.maxInFlight(), spec.queueTimeout(), spec.upgrades(), new Route.Spelling(
                spec.predicates().stream().map(RouteSpec.ComponentSpec::spelled).toList(),
                spec.filters().stream().map(RouteSpec.ComponentSpec::spelled).toList()));
    }

    /** Finds the factory a predicate or filter names, binds its arguments and makes it. */
    private static <T, F extends ExtensionFactory<T>> T create(String file, String context,
                                                               RouteSpec.ComponentSpec c,
                                                               ExtensionRegistry<F, ?> registry)
            throws ConfigException {
        F f = registry.find(c.name());
        if (f == null && ScgRefusals.reason(registry.kind(), c.name()) != null) {
            throw new ConfigException(file, c.line(), context, "Spring Cloud Gateway's " + registry.kind() + " '"
                    + c.name() + "' is not supported: " + ScgRefusals.reason(registry.kind(), c.name()));
        }
        if (f == null) {
            String hint = DidYouMean.hint(c.name(), registry.names());
            throw new ConfigException(file, c.line(), context, "unknown " + registry.kind() + " '" + c.name() + "'"
                    + (hint.isEmpty() ? " (known: " + String.join(", ", registry.names()) + ")" : hint));
        }
        try {
            return f.create(ComponentBinder.bind(c.args(), f.argNames(), f.gathersList()));
        } catch (IllegalArgumentException e) {
            // An ArgumentException names the argument: point at the line it was written on.
            int line = e instanceof ArgumentException a ? c.lineOf(a.argument()) : c.line();
            throw new ConfigException(file, line, context, registry.kind() + " '" + c.name() + "': " + e.getMessage());
        } catch (RuntimeException e) { // a plugin's factory that throws at start-up refuses the config
            throw new ConfigException(file, c.line(), context, registry.kind() + " '" + c.name() + "' failed: " + e);
        }
    }

    /** Specs from {@link ConfigLoader} hold checked URIs; specs built in code are checked here. */
    /** @param offerH2 {@code upstream.http2}: https endpoints negotiate h2 by ALPN */
    private static List<Endpoint> endpoints(String file, RouteSpec spec, boolean offerH2) throws ConfigException {
        List<Endpoint> out = new ArrayList<>();
        for (URI uri : spec.uris()) {
            try {
                UpstreamUri u = UpstreamUri.of(uri);
                out.add(new Endpoint(u.host(), u.port(), u.tls(), u.h2c() || u.tls() && offerH2));
            } catch (IllegalArgumentException e) {
                throw new ConfigException(file, spec.line(), "route '" + spec.id() + "'", "uri: " + e.getMessage());
            }
        }
        if (out.isEmpty()) {
            throw new ConfigException(file, spec.line(), "route '" + spec.id() + "'", "needs at least one uri");
        }
        return out;
    }
}
