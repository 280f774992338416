package io.loomgate.route;

import io.loomgate.filter.GatewayFilter;
import io.loomgate.resilience.RoutePolicies;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * One configured route: when it applies (predicates, all must hold), what to do to the exchange (filters, in order)
 * and how long to wait for the origin. Immutable. Which upstream serves it is not the route's to say: the assembly
 * pairs each route with the upstream its {@code uri}/{@code uris} make, and the proxy binds them once
 * ({@code proxy.BoundRoutes}), so a route never names an upstream by id.
 *
 * @param id           unique name, used in logs and metrics
 * @param order        lower first; routes of equal order keep their file order
 * @param predicates   all must match
 * @param filters      applied in order around the forwarding core
 * @param timeout      how long to wait for the response head from the origin
 * @param preserveHost send the client's Host upstream (true) or the upstream's authority (false)
 * @param maxInFlight  most requests forwarded at once on this route, 0 for no limit
 * @param queueTimeout how long a request over maxInFlight waits for a slot before 503
 * @param upgrades     the protocols a request may upgrade to through this route (lower case; default websocket):
 *                     after a 101 no route or filter sees what passes, so others are removed from the request
 * @param policies     its {@code Retry} and {@code CircuitBreaker}, bound when it was built; the proxy runs them
 *                     around the filters and the upstream attempts
 */
public record Route(String id, int order, List<RoutePredicate> predicates, List<GatewayFilter> filters,
                    Duration timeout, boolean preserveHost, int maxInFlight,
                    Duration queueTimeout, Set<String> upgrades, RoutePolicies policies, Spelling spelling) {
    /** What a route allows to upgrade to when it does not say. */
    public static final Set<String> DEFAULT_UPGRADES = Set.of("websocket");

    /**
     * The predicates and filters as the configuration wrote them ({@code Path=/users/**}, {@code StripPrefix=1}), in
     * the order of {@link #predicates} and {@link #filters}: what /routes shows an operator, who wrote those and not
     * the Java objects they became. Empty for a route built in code (then each object's own text is shown).
     */
    public record Spelling(List<String> predicates, List<String> filters) {
        public static final Spelling NONE = new Spelling(List.of(), List.of());

        public Spelling {
            predicates = List.copyOf(predicates);
            filters = List.copyOf(filters);
        }
    }

    public Route {
        predicates = List.copyOf(predicates);
        filters = List.copyOf(filters);
        upgrades = upgrades.stream().map(p -> p.toLowerCase(Locale.ROOT)).collect(Collectors.toUnmodifiableSet());
        policies = policies == null ? RoutePolicies.NONE : policies;
        spelling = spelling == null ? Spelling.NONE : spelling;
    }

    /** A route with no retry and no breaker, built in code (no configuration's spelling). */
    public Route(String id, int order, List<RoutePredicate> predicates, List<GatewayFilter> filters,
                 Duration timeout, boolean preserveHost, int maxInFlight, Duration queueTimeout,
                 Set<String> upgrades) {
        this(id, order, predicates, filters, timeout, preserveHost, maxInFlight, queueTimeout, upgrades,
                RoutePolicies.NONE);
    }

    /** A route built in code, with its policies (no configuration's spelling). */
    public Route(String id, int order, List<RoutePredicate> predicates, List<GatewayFilter> filters,
                 Duration timeout, boolean preserveHost, int maxInFlight, Duration queueTimeout, Set<String> upgrades,
                 RoutePolicies policies) {
        this(id, order, predicates, filters, timeout, preserveHost, maxInFlight, queueTimeout, upgrades, policies,
                Spelling.NONE);
    }

    /** Predicate {@code i} as written in the configuration, or its own text when the route was built in code. */
    public String predicateText(int i) {
        return i < spelling.predicates().size() ? spelling.predicates().get(i) : predicates.get(i).toString();
    }

    /**
     * The filters as written in the configuration, {@code Retry} and {@code CircuitBreaker} among them where they were
     * written (they became {@link #policies}, so the list can be longer than {@link #filters}); each filter's own text
     * when the route was built in code.
     */
    public List<String> filterTexts() {
        return spelling.filters().isEmpty() ? filters.stream().map(Object::toString).toList() : spelling.filters();
    }

    /** A route that allows the default upgrades only. */
    public Route(String id, int order, List<RoutePredicate> predicates, List<GatewayFilter> filters,
                 Duration timeout, boolean preserveHost, int maxInFlight, Duration queueTimeout) {
        this(id, order, predicates, filters, timeout, preserveHost, maxInFlight, queueTimeout,
                DEFAULT_UPGRADES);
    }

    /**
     * The id's hash: equal routes have equal ids, and ids are unique in a configuration. Not the record's own: that
     * is bootstrapped by invokedynamic ({@code java.lang.runtime.ObjectMethods}) at its first call, which JDK 25's AOT
     * cache does not hold, so the assembly's first put of a route spun method-handle classes at run time (the JDK's
     * class-file API, run interpreted: about 10 ms of the main thread before the first answer). {@code equals} stays
     * the record's; a map of routes calls it only for routes whose ids hash alike.
     */
    @Override
    public int hashCode() {
        return Objects.hashCode(id);
    }

    /** Whether a request may upgrade to this protocol (an Upgrade token: name, maybe "/version"). */
    public boolean allowsUpgrade(String protocol) {
        int slash = protocol.indexOf('/');
        String name = (slash < 0 ? protocol : protocol.substring(0, slash)).trim().toLowerCase(Locale.ROOT);
        return upgrades.contains(name);
    }
}
