package io.loomgate.config;

import io.loomgate.route.Route;
import io.loomgate.upstream.Balancing;
import io.loomgate.upstream.UpstreamDefinition;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One route as written in the file, validated.
 *
 * @param id           unique
 * @param line         the line of the file where the route starts (for messages)
 * @param uris         one or more {@code http://host:port} origins (from {@code uri} or {@code uris}); empty when the
 *                     route names an upstream of the {@code upstreams:} section ({@code upstream})
 * @param order        default 0
 * @param predicates   in order
 * @param filters      in order
 * @param timeout      response-head timeout (default 30s)
 * @param preserveHost default true
 * @param maxInFlight  default 0 (no limit)
 * @param queueTimeout how long a request over max-in-flight waits (default 0: 503 at once)
 * @param balancing    the balancer, the endpoints' weights (one per uri), health checks and outlier detection; null
 *                     when the route names an upstream (whose own these are)
 * @param upgrades     protocols a request may upgrade to (default websocket; never h2c)
 * @param dnsRefresh   how often host names among the uris are resolved again (default 30s; zero: off); null when
 *                     the route names an upstream
 * @param upstream     the name of the upstream of the {@code upstreams:} section serving the route
 *                     ({@code uri: lb://NAME}); null when its own {@code uri}/{@code uris} make an upstream named
 *                     after the route
 */
public record RouteSpec(String id, int line, List<URI> uris, int order, List<ComponentSpec> predicates,
                        List<ComponentSpec> filters, Duration timeout, boolean preserveHost, int maxInFlight,
                        Duration queueTimeout, Balancing balancing, Set<String> upgrades, Duration dnsRefresh,
                        String upstream) {

    /** A route whose own origins make its upstream. */
    public RouteSpec(String id, int line, List<URI> uris, int order, List<ComponentSpec> predicates,
                     List<ComponentSpec> filters, Duration timeout, boolean preserveHost, int maxInFlight,
                     Duration queueTimeout, Balancing balancing, Set<String> upgrades, Duration dnsRefresh) {
        this(id, line, uris, order, predicates, filters, timeout, preserveHost, maxInFlight, queueTimeout, balancing,
                upgrades, dnsRefresh, null);
    }

    /** With the default DNS refresh. */
    public RouteSpec(String id, int line, List<URI> uris, int order, List<ComponentSpec> predicates,
                     List<ComponentSpec> filters, Duration timeout, boolean preserveHost, int maxInFlight,
                     Duration queueTimeout, Balancing balancing, Set<String> upgrades) {
        this(id, line, uris, order, predicates, filters, timeout, preserveHost, maxInFlight, queueTimeout, balancing,
                upgrades, UpstreamDefinition.DEFAULT_DNS_REFRESH);
    }

    /** The same route with these filters (the shared ones put in front), everything else as it is. */
    public RouteSpec withFilters(List<ComponentSpec> other) {
        return new RouteSpec(id, line, uris, order, predicates, other, timeout, preserveHost, maxInFlight,
                queueTimeout, balancing, upgrades, dnsRefresh, upstream);
    }

    /** Whether the route names an upstream of the {@code upstreams:} section rather than listing its origins. */
    public boolean namesUpstream() {
        return upstream != null;
    }

    /** A route with equal weights, least-request balancing, no health checks and no outlier detection. */
    public RouteSpec(String id, int line, List<URI> uris, int order, List<ComponentSpec> predicates,
                     List<ComponentSpec> filters, Duration timeout, boolean preserveHost, int maxInFlight,
                     Duration queueTimeout) {
        this(id, line, uris, order, predicates, filters, timeout, preserveHost, maxInFlight, queueTimeout,
                Balancing.defaults(uris.size()), Route.DEFAULT_UPGRADES);
    }

    /**
     * A predicate or filter as written: {@code Name=a,b} (shorthand: positional args) or {@code {name, args}}
     * (expanded: named args in order).
     *
     * @param name as written
     * @param args positional args are keyed {@code _genkey_0}, {@code _genkey_1}… as Spring Cloud Gateway does;
     *             insertion order is kept
     * @param line where it was written
     * @param argLines the line of each named argument of the expanded form (nested ones by their dotted name); empty
     *                 for the shorthand, whose arguments are all on {@code line}
     * @param context for a filter every route shares ({@code default-filters}, {@code cors}), the section it was
     *                written in, for messages; null for a route's own
     */
    public record ComponentSpec(String name, Map<String, String> args, int line, Map<String, Integer> argLines,
                                String context) {

        public ComponentSpec {
            argLines = Map.copyOf(argLines);
        }

        /**
         * As the configuration writes it: the shorthand {@code Name=a,b} when its arguments were positional, else
         * {@code Name={key=value, ...}} (the long form's keys).
         */
        public String spelled() {
            if (args.isEmpty()) {
                return name;
            }
            if (args.keySet().stream().allMatch(k -> k.startsWith("_genkey_"))) {
                return name + "=" + String.join(",", args.values());
            }
            return name + "=" + args;
        }

        /** A component whose arguments are all on its own line (the shorthand, or one built in code). */
        public ComponentSpec(String name, Map<String, String> args, int line) {
            this(name, args, line, Map.of(), null);
        }

        /** A route's own component. */
        public ComponentSpec(String name, Map<String, String> args, int line, Map<String, Integer> argLines) {
            this(name, args, line, argLines, null);
        }

        /** Whether every route holds this very spec (and so one filter built from it). */
        public boolean shared() {
            return context != null;
        }

        /** Where argument {@code name} was written: its own line when known, else the component's. */
        public int lineOf(String argument) {
            return argLines.getOrDefault(argument, line);
        }
    }
}
