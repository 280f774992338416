package io.loomgate.config;

import io.loomgate.route.Route;
import io.loomgate.upstream.Balancing;
import io.loomgate.upstream.UpstreamDefinition;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/** Reads the {@code routes:} list into {@link RouteSpec}s; route ids must be unique. */
final class RouteReader {
    static final List<String> KEYS = List.of("id", "uri", "uris", "order", "predicates", "filters", "timeout",
            "preserve-host", "max-in-flight", "queue-timeout", "load-balancer", "hash", "health-check",
            "outlier-detection", "upgrades", "dns-refresh");
    /** What a named upstream sets for every route on it; a route on one may not. */
    private static final List<String> UPSTREAM_OWN_KEYS = List.of("uris", "load-balancer", "hash", "health-check",
            "outlier-detection", "dns-refresh");
    private static final List<String> COMPONENT_KEYS = List.of("name", "args");
    static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(30);
    private static final String LOCAL_RESPONSE_CACHE = "LocalResponseCache";

    private final String file;
    private final Map<String, UpstreamSpec> upstreams;
    private final Map<String, Integer> idLines = new HashMap<>();

    /** @param upstreams the {@code upstreams:} section, which {@code uri: lb://NAME} names */
    RouteReader(String file, Map<String, UpstreamSpec> upstreams) {
        this.file = file;
        this.upstreams = upstreams;
    }

    /**
     * The routes, each with the filters every route shares in front of its own: the global {@code cors:} section
     * first (so a preflight is answered before any authentication), then {@code default-filters:} (Spring Cloud
     * Gateway's), then the route's own.
     */
    List<RouteSpec> read(Section root) throws ConfigException {
        List<RouteSpec.ComponentSpec> shared = new ArrayList<>();
        RouteSpec.ComponentSpec cors = GlobalCors.read(file, root);
        if (cors != null) {
            shared.add(cors);
        }
        for (RouteSpec.ComponentSpec c : components(root, "default-filters")) {
            shared.add(new RouteSpec.ComponentSpec(c.name(), c.args(), c.line(), c.argLines(), "default-filters"));
        }
        List<RouteSpec> routes = new ArrayList<>();
        List<YamlNode> items = root.list("routes");
        for (int i = 0; i < items.size(); i++) {
            RouteSpec r = route(items.get(i), "routes[" + i + "]");
            if (!shared.isEmpty()) {
                List<RouteSpec.ComponentSpec> filters = new ArrayList<>(shared);
                if (r.filters().stream().anyMatch(f -> f.name().equals(LOCAL_RESPONSE_CACHE))) {
                    // SCG's global response cache steps aside for a route that has its own
                    filters.removeIf(f -> f.name().equals(LOCAL_RESPONSE_CACHE));
                }
                filters.addAll(r.filters());
                r = r.withFilters(filters); // keeps the route's balancing, upgrades and DNS refresh
            }
            routes.add(r);
        }
        return List.copyOf(routes);
    }

    private RouteSpec route(YamlNode node, String position) throws ConfigException {
        String written = writtenId(node);
        String context = written == null ? position : "route '" + written + "'";
        Section s = Section.context(file, context, node, KEYS);
        String id = s.string("id", null);
        if (id == null) {
            throw new ConfigException(file, s.line(), position, "missing 'id'");
        }
        if (!id.chars().allMatch(c -> c > 0x20 && c != 0x7f && c != '\'')) {
            throw s.error("id", "must not contain whitespace, quotes or control characters, got '" + id + "'");
        }
        Integer before = idLines.putIfAbsent(id, s.lineOf("id"));
        if (before != null) {
            throw new ConfigException(file, s.lineOf("id"), context, "duplicate route id (first at line " + before
                    + ")");
        }
        if (s.has("uri") && isLb(s.string("uri", ""))) {
            return named(s, id, context);
        }
        UpstreamSpec clash = upstreams.get(id);
        if (clash != null) {
            throw s.error("id", "its own uri makes an upstream named after the route, and upstreams." + id
                    + " (line " + clash.line() + ") has that name too; write uri: lb://" + id + " to use it, or "
                    + "rename one of them");
        }
        BalancingReader.Origins origins = BalancingReader.origins(file, s, context);
        Balancing balancing = BalancingReader.balancing(file, s, origins.weights());
        BalancingReader.checkGrpcHealth(s, origins.uris(), balancing);
        return new RouteSpec(id, s.line(), origins.uris(), s.integer("order", 0, Integer.MIN_VALUE,
                Integer.MAX_VALUE), components(s, "predicates"), components(s, "filters"),
                s.duration("timeout", DEFAULT_TIMEOUT, false), s.bool("preserve-host", true),
                s.integer("max-in-flight", 0, 0, Integer.MAX_VALUE), s.duration("queue-timeout", Duration.ZERO, true),
                balancing, upgrades(s), dnsRefresh(s));
    }

    private static boolean isLb(String uri) {
        return uri.regionMatches(true, 0, "lb://", 0, 5);
    }

    /**
     * A route on a named upstream ({@code uri: lb://NAME}, Spring Cloud Gateway's spelling): the upstream's settings
     * are shared by every route on it, so the route may not set them; its circuit breaker, when it has one, follows
     * the route's own filters.
     */
    private RouteSpec named(Section s, String id, String context) throws ConfigException {
        String written = s.string("uri", "");
        String name = written.substring(5);
        if (name.endsWith("/")) {
            name = name.substring(0, name.length() - 1);
        }
        if (!UpstreamsReader.validName(name)) {
            throw s.error("uri", "expected lb://NAME, a service of the upstreams: section (no port, path or query), "
                    + "got '" + written + "'");
        }
        UpstreamSpec upstream = upstreams.get(name);
        if (upstream == null) {
            String hint = DidYouMean.hint(name, upstreams.keySet());
            throw s.error("uri", "no upstream '" + name + "' under upstreams:" + (!hint.isEmpty() ? hint
                    : upstreams.isEmpty() ? " (the file declares none; list the service's uris under upstreams."
                    + name + ")" : " (declared: " + String.join(", ", upstreams.keySet()) + ")"));
        }
        for (String key : UPSTREAM_OWN_KEYS) {
            if (s.has(key)) {
                throw s.error(key, "belongs to the upstream: uri is lb://" + name + ", so write it under upstreams."
                        + name + " (line " + upstream.line() + "), where every route on it shares it");
            }
        }
        List<RouteSpec.ComponentSpec> filters = components(s, "filters");
        if (upstream.breaker() != null) {
            filters = new ArrayList<>(filters);
            filters.add(upstream.breaker());
            filters = List.copyOf(filters);
        }
        return new RouteSpec(id, s.line(), List.of(), s.integer("order", 0, Integer.MIN_VALUE, Integer.MAX_VALUE),
                components(s, "predicates"), filters, s.duration("timeout", DEFAULT_TIMEOUT, false),
                s.bool("preserve-host", true), s.integer("max-in-flight", 0, 0, Integer.MAX_VALUE),
                s.duration("queue-timeout", Duration.ZERO, true), null, upgrades(s), null, name);
    }

    /** {@code dns-refresh}: a duration, or {@code 0} / {@code off} to look names up on each dial instead. */
    static Duration dnsRefresh(Section s) throws ConfigException {
        YamlNode n = s.node("dns-refresh");
        if (n instanceof YamlNode.Scalar sc && !sc.isNull()
                && (sc.text().trim().equalsIgnoreCase("off") || sc.text().trim().equals("0"))) {
            return Duration.ZERO;
        }
        return s.duration("dns-refresh", UpstreamDefinition.DEFAULT_DNS_REFRESH, true);
    }

    /**
     * The protocols a request may upgrade to: default websocket. h2c is refused: after its 101 every request on the
     * connection bypasses routes and filters, and RFC 9113 §3.1 deprecates it.
     */
    private static Set<String> upgrades(Section s) throws ConfigException {
        if (!s.has("upgrades")) {
            return Route.DEFAULT_UPGRADES;
        }
        Set<String> out = new LinkedHashSet<>();
        List<YamlNode.Scalar> items = s.scalarList("upgrades");
        for (int i = 0; i < items.size(); i++) {
            String p = items.get(i).text().trim().toLowerCase(Locale.ROOT);
            if (p.equals("h2c")) {
                throw s.error("upgrades[" + i + "]", items.get(i).line(), "h2c cannot be tunnelled: after the switch "
                        + "no route or filter sees its requests (RFC 9113 deprecates it)");
            }
            if (p.isEmpty() || !p.chars().allMatch(c -> c > 0x20 && c < 0x7f && c != ',' && c != '"')) {
                throw s.error("upgrades[" + i + "]", items.get(i).line(), "expected a protocol name like "
                        + "websocket, got '" + items.get(i).text() + "'");
            }
            out.add(p);
        }
        return Set.copyOf(out);
    }

    /** The id as written, to name the route in messages about its other keys; null when there is none. */
    private static String writtenId(YamlNode node) {
        if (node instanceof YamlNode.Mapping m) {
            for (YamlNode.Entry e : m.entries()) {
                if (Section.canonical(e.key()).equals("id") && e.value() instanceof YamlNode.Scalar sc
                        && !sc.isNull() && !sc.text().isBlank()) {
                    return sc.text().trim();
                }
            }
        }
        return null;
    }

    private List<RouteSpec.ComponentSpec> components(Section s, String key) throws ConfigException {
        List<RouteSpec.ComponentSpec> out = new ArrayList<>();
        List<YamlNode> items = s.list(key);
        for (int i = 0; i < items.size(); i++) {
            out.add(component(s, key + "[" + i + "]", items.get(i)));
        }
        return List.copyOf(out);
    }

    /** {@code Name=a,b} (shorthand, positional) or {@code {name: Name, args: {k: v}}} (expanded, named). */
    private RouteSpec.ComponentSpec component(Section s, String key, YamlNode item) throws ConfigException {
        if (item instanceof YamlNode.Scalar scalar && !scalar.isNull()) {
            return shorthand(s, key, scalar);
        }
        if (!(item instanceof YamlNode.Mapping)) {
            throw s.error(key, item.line(), "expected Name=arguments (like Path=/users/**) or a mapping with name "
                    + "and args, got " + item.describe());
        }
        Section c = Section.context(file, s.childName(key), item, COMPONENT_KEYS);
        String name = c.string("name", null);
        if (name == null) {
            throw s.error(key, item.line(), "missing 'name'");
        }
        checkName(s, key, item.line(), name, name);
        Map<String, String> args = new LinkedHashMap<>();
        Map<String, Integer> argLines = new LinkedHashMap<>();
        YamlNode argsNode = c.node("args");
        if (argsNode instanceof YamlNode.Mapping m) {
            for (YamlNode.Entry e : m.entries()) {
                if (e.value() instanceof YamlNode.Mapping nested) {
                    // Spring's relaxed binding: {redis-rate-limiter: {replenishRate: 10}} is
                    // redis-rate-limiter.replenishRate: 10.
                    for (YamlNode.Entry n : nested.entries()) {
                        String dotted = e.key() + "." + n.key();
                        args.put(dotted, argValue(s, key + ".args." + dotted, n.value()));
                        argLines.put(dotted, n.line());
                    }
                    continue;
                }
                args.put(e.key(), argValue(s, key + ".args." + e.key(), e.value()));
                argLines.put(e.key(), e.line());
            }
        } else if (argsNode != null && !(argsNode instanceof YamlNode.Scalar sc && sc.isNull())) {
            throw s.error(key + ".args", argsNode.line(), "expected a mapping of argument names to values, got "
                    + argsNode.describe());
        }
        return new RouteSpec.ComponentSpec(name, args, item.line(), argLines);
    }

    private RouteSpec.ComponentSpec shorthand(Section s, String key, YamlNode.Scalar scalar) throws ConfigException {
        String text = scalar.text().trim();
        int eq = text.indexOf('=');
        String name = (eq < 0 ? text : text.substring(0, eq)).trim();
        checkName(s, key, scalar.line(), name, text);
        Map<String, String> args = new LinkedHashMap<>();
        if (eq >= 0 && !text.substring(eq + 1).isBlank()) {
            String[] values = text.substring(eq + 1).split(",", -1);
            for (int i = 0; i < values.length; i++) {
                args.put("_genkey_" + i, values[i].trim());
            }
        }
        return new RouteSpec.ComponentSpec(name, args, scalar.line());
    }

    private static void checkName(Section s, String key, int line, String name, String written)
            throws ConfigException {
        if (!name.matches("[A-Za-z][A-Za-z0-9_]*")) {
            throw s.error(key, line, "expected Name=arguments (like Path=/users/**) or a mapping with name and args, "
                    + "got '" + written + "'");
        }
    }

    /** A scalar, or a list of scalars joined with commas (Spring Cloud Gateway binds lists the same way). */
    static String argValue(Section s, String key, YamlNode value) throws ConfigException {
        if (value instanceof YamlNode.Scalar sc) {
            return sc.text();
        }
        if (value instanceof YamlNode.Sequence seq) {
            List<String> parts = new ArrayList<>();
            for (YamlNode item : seq.items()) {
                if (!(item instanceof YamlNode.Scalar sc) || sc.isNull()) {
                    throw s.error(key, item.line(), "expected a list of values, got " + item.describe());
                }
                parts.add(sc.text());
            }
            return String.join(",", parts);
        }
        throw s.error(key, value.line(), "expected a value or a list of values, got " + value.describe());
    }
}
