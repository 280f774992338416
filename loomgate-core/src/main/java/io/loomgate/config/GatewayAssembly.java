package io.loomgate.config;

import io.loomgate.extension.ArgumentException;
import io.loomgate.extension.ExtensionFactory;
import io.loomgate.extension.ExtensionRegistry;
import io.loomgate.filter.FilterRegistry;
import io.loomgate.filter.GatewayFilter;
import io.loomgate.filter.PreserveHostHeaderFilter;
import io.loomgate.ratelimit.RateLimitListener;
import io.loomgate.ratelimit.RateLimiting;
import io.loomgate.resilience.KeptPolicies;
import io.loomgate.resilience.PolicyRegistry;
import io.loomgate.resilience.RoutePolicies;
import io.loomgate.route.PredicateRegistry;
import io.loomgate.route.Route;
import io.loomgate.route.RoutePredicate;
import io.loomgate.route.RouteTable;
import io.loomgate.security.JwksKeySets;
import io.loomgate.upstream.Endpoint;
import io.loomgate.upstream.UpstreamDefinition;
import java.net.URI;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The runtime objects a configuration describes: the route table (predicates and filters built through the
 * registries) and, for each route, the upstream definition that serves it: the named upstream of the
 * {@code upstreams:} section its {@code uri: lb://NAME} names (one definition, so one upstream, for every route on
 * it), or the one its own {@code uri}/{@code uris} make, named after the route. The upstream's name labels metrics and
 * {@code /routes}; the pairing is this map, so a route never carries an upstream id.
 *
 * @param upstreamOf each route of {@code routes}, with the upstream that serves it, in file order
 */
public record GatewayAssembly(RouteTable routes, Map<Route, UpstreamDefinition> upstreamOf) {

    public GatewayAssembly {
        upstreamOf = Collections.unmodifiableMap(new LinkedHashMap<>(upstreamOf));
    }

    /**
     * Every upstream definition a route uses, each once, in the order routes first use them. An upstream of the
     * {@code upstreams:} section no route names is checked but not made: no pools, no health checks.
     */
    public List<UpstreamDefinition> upstreams() {
        return List.copyOf(new java.util.LinkedHashSet<>(upstreamOf.values()));
    }

    /** Builds them with the built-in predicates and filters; fails with the file and line of the offending route,
     * predicate or filter. {@code RequestRateLimiter} is built with no listener and a Redis pool nobody closes
     * (it dials nothing until a request comes): this is for checking a configuration; a gateway that serves owns a
     * {@link RateLimiting} and passes its factory to {@link #build(GatewayConfig, PredicateRegistry, FilterRegistry)}.
     */
    public static GatewayAssembly build(GatewayConfig config) throws ConfigException {
        return build(config, BuiltIns.predicates(), gatewayFilters()
                .register(new RateLimiting(config.redis(), RateLimitListener.NOOP).filterFactory()));
    }

    /**
     * Every built-in filter ({@link BuiltIns#filters}); {@code RequestRateLimiter} is added by whoever owns its Redis
     * pool. {@code Retry} and {@code CircuitBreaker} are route policies, which {@link #build} makes for each
     * configuration it builds, so breakers are shared within one configuration.
     */
    public static FilterRegistry gatewayFilters() {
        return gatewayFilters(new JwksKeySets());
    }

    /** As {@link #gatewayFilters()}, with {@code JwtAuth} taking JWKS keys from a gateway's kept sources. */
    public static FilterRegistry gatewayFilters(JwksKeySets keySets) {
        return BuiltIns.filters(keySets);
    }

    /**
     * Builds them with these registries, which may hold user factories besides the built-ins.
     *
     * @throws ConfigException naming the route and the line of the predicate or filter: unknown name (with a
     *                         did-you-mean), surplus or unknown arguments, or a value its factory refuses
     */
    public static GatewayAssembly build(GatewayConfig config, PredicateRegistry predicates, FilterRegistry filters)
            throws ConfigException {
        return build(config, predicates, filters, new KeptPolicies());
    }

    /**
     * As {@link #build(GatewayConfig, PredicateRegistry, FilterRegistry)}, for a gateway that serves and reloads: a
     * {@code CircuitBreaker} whose name and settings {@code breakers} keeps gets that breaker, with its state.
     */
    public static GatewayAssembly build(GatewayConfig config, PredicateRegistry predicates, FilterRegistry filters,
                                        KeptPolicies breakers) throws ConfigException {
        String file = config.source() == null ? "<config>" : config.source().toString();
        Map<Route, UpstreamDefinition> upstreamOf = new LinkedHashMap<>();
        Map<RouteSpec.ComponentSpec, GatewayFilter> shared = new IdentityHashMap<>();
        PolicyRegistry policies = BuiltIns.policies(breakers);
        Map<String, UpstreamDefinition> named = named(file, config);
        for (RouteSpec spec : config.routes()) {
            UpstreamDefinition upstream = upstreamOf(file, spec, config, named);
            if (upstreamOf.put(route(file, spec, predicates, filters, policies, shared), upstream) != null) {
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
     *               once, so a JwtAuth there keeps one key set and one token cache for all routes. A route policy
     *               ({@code Retry}, {@code CircuitBreaker}) is made for each route, so each has its own retry budget.
     */
    private static Route route(String file, RouteSpec spec, PredicateRegistry predicates, FilterRegistry filters,
                               PolicyRegistry policies, Map<RouteSpec.ComponentSpec, GatewayFilter> shared)
            throws ConfigException {
        String context = "route '" + spec.id() + "'";
        PrincipalOrder.check(file, context, spec.filters());
        List<RoutePredicate> built = new ArrayList<>();
        for (RouteSpec.ComponentSpec c : spec.predicates()) {
            built.add(create(file, context, spec.id(), c, predicates, List.of()));
        }
        List<GatewayFilter> chain = new ArrayList<>();
        RoutePolicies bound = RoutePolicies.NONE;
        for (RouteSpec.ComponentSpec c : spec.filters()) {
            if (policies.find(c.name()) != null) {
                String where = c.shared() ? c.context() : context;
                try {
                    // made for each route, even from default-filters: each its own (its retry budget)
                    bound = bound.with(create(file, where, spec.id(), c, policies, List.of()));
                } catch (IllegalArgumentException e) {
                    throw new ConfigException(file, c.line(), context, e.getMessage());
                }
                continue;
            }
            GatewayFilter already = shared.get(c);
            if (already != null) {
                chain.add(already);
                continue;
            }
            GatewayFilter filter = create(file, c.shared() ? c.context() : context, c.shared() ? null : spec.id(), c,
                    filters, policies.names());
            chain.add(filter);
            if (c.shared()) {
                shared.put(c, filter);
            }
        }
        boolean preserveHost = spec.preserveHost() || PreserveHostHeaderFilter.requestedIn(chain);
        return new Route(spec.id(), spec.order(), built, chain, spec.timeout(), preserveHost,
                spec.maxInFlight(), spec.queueTimeout(), spec.upgrades(), bound, new Route.Spelling(
                spec.predicates().stream().map(RouteSpec.ComponentSpec::spelled).toList(),
                spec.filters().stream().map(RouteSpec.ComponentSpec::spelled).toList()));
    }

    /**
     * Finds the factory a predicate or filter names, binds its arguments and makes it.
     *
     * @param routeId   the route it is made for, null for one every route shares ({@link ExtensionFactory#create(String,
     *                  Map)})
     * @param alsoKnown names of the same kind another registry answers (the route policies), for the unknown-name hint
     */
    private static <T, F extends ExtensionFactory<T>> T create(String file, String context, String routeId,
                                                               RouteSpec.ComponentSpec c,
                                                               ExtensionRegistry<F, ?> registry,
                                                               Collection<String> alsoKnown)
            throws ConfigException {
        F f = registry.find(c.name());
        if (f == null && ScgRefusals.reason(registry.kind(), c.name()) != null) {
            throw new ConfigException(file, c.line(), context, "Spring Cloud Gateway's " + registry.kind() + " '"
                    + c.name() + "' is not supported: " + ScgRefusals.reason(registry.kind(), c.name()));
        }
        if (f == null && OptionalModules.of(registry.kind(), c.name()) != null) {
            throw new ConfigException(file, c.line(), context, registry.kind() + " '" + c.name() + "' needs the "
                    + "module " + OptionalModules.of(registry.kind(), c.name()) + ", which is not on the class path: "
                    + "add it beside loomgate-core (the distribution jars carry it)");
        }
        if (f == null) {
            List<String> known = new ArrayList<>(registry.names());
            known.addAll(alsoKnown);
            String hint = DidYouMean.hint(c.name(), known);
            throw new ConfigException(file, c.line(), context, "unknown " + registry.kind() + " '" + c.name() + "'"
                    + (hint.isEmpty() ? " (known: " + String.join(", ", known) + ")" : hint));
        }
        try {
            return f.create(routeId, ComponentBinder.bind(c.args(), f.argNames(), f.gathersList()));
        } catch (IllegalArgumentException e) {
            // An ArgumentException names the argument: point at the line it was written on.
            int line = e instanceof ArgumentException a ? c.lineOf(a.argument()) : c.line();
            throw new ConfigException(file, line, context, registry.kind() + " '" + c.name() + "': " + e.getMessage());
        } catch (RuntimeException e) { // a plugin's factory that throws at start-up refuses the config
            throw new ConfigException(file, c.line(), context, registry.kind() + " '" + c.name() + "' failed: " + e);
        }
    }

    /** One definition per upstream of the {@code upstreams:} section, by name: every route naming it shares it. */
    private static Map<String, UpstreamDefinition> named(String file, GatewayConfig config) throws ConfigException {
        Map<String, UpstreamDefinition> out = new LinkedHashMap<>();
        for (UpstreamSpec u : config.upstreams().values()) {
            String where = "upstreams." + u.name();
            out.put(u.name(), new UpstreamDefinition(u.name(), endpoints(file, u.line(), where, u.uris(),
                    u.pool().http2()), u.pool(), u.balancing(), u.dnsRefresh()));
        }
        return out;
    }

    /**
     * The named upstream the route's {@code lb://NAME} names, or the one its own origins make, named after the route
     * (which must then not be the name of a declared upstream: two upstreams of one name would share metrics).
     */
    private static UpstreamDefinition upstreamOf(String file, RouteSpec spec, GatewayConfig config,
                                                 Map<String, UpstreamDefinition> named) throws ConfigException {
        String context = "route '" + spec.id() + "'";
        if (spec.namesUpstream()) {
            UpstreamDefinition d = named.get(spec.upstream());
            if (d == null) { // ConfigLoader checks this with the line of the uri; a spec built in code, here
                throw new ConfigException(file, spec.line(), context, "uri: no upstream '" + spec.upstream()
                        + "' under upstreams:" + DidYouMean.hint(spec.upstream(), named.keySet()));
            }
            return d;
        }
        UpstreamSpec clash = config.upstreams().get(spec.id());
        if (clash != null) {
            throw new ConfigException(file, spec.line(), context, "its own uri makes an upstream named after the "
                    + "route, and upstreams." + spec.id() + " (line " + clash.line() + ") has that name too; write "
                    + "uri: lb://" + spec.id() + " to use it, or rename one of them");
        }
        return new UpstreamDefinition(spec.id(), endpoints(file, spec.line(), context, spec.uris(),
                config.upstreamDefaults().http2()), config.upstreamDefaults(), spec.balancing(), spec.dnsRefresh());
    }

    /**
     * Specs from {@link ConfigLoader} hold checked URIs; specs built in code are checked here.
     *
     * @param offerH2 {@code upstream.http2} (or the named upstream's {@code pool.http2}): https endpoints negotiate
     *                h2 by ALPN
     */
    private static List<Endpoint> endpoints(String file, int line, String context, List<URI> uris, boolean offerH2)
            throws ConfigException {
        List<Endpoint> out = new ArrayList<>();
        for (URI uri : uris) {
            try {
                UpstreamUri u = UpstreamUri.of(uri);
                out.add(new Endpoint(u.host(), u.port(), u.tls(), u.h2c() || u.tls() && offerH2));
            } catch (IllegalArgumentException e) {
                throw new ConfigException(file, line, context, "uri: " + e.getMessage());
            }
        }
        if (out.isEmpty()) {
            throw new ConfigException(file, line, context, "needs at least one uri");
        }
        return out;
    }
}
