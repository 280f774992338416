package io.loomgate.config;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Spring Cloud Gateway's {@code application.yml} layout, rewritten into Loomgate's own before the file is read, so an
 * SCG file runs as pasted (issue 37). It moves {@code spring.cloud.gateway.routes}, {@code default-filters} and
 * {@code globalcors} (under any of SCG's prefixes: {@code spring.cloud.gateway}, {@code .server.webflux},
 * {@code .server.webmvc}, {@code .mvc}), {@code httpclient} timeouts, route {@code metadata} timeouts and
 * {@code spring.data.redis.*} to Loomgate's keys, keeping every node's line so later errors still point into the
 * file. {@code server.*} needs nothing: Loomgate's keys are Spring Boot's.
 *
 * <p>Every other {@code spring.*} key is refused on its own line with why it has no equivalent; when importing
 * ({@code loomgate import-scg}) it is dropped and reported instead.
 */
final class ScgLayout {
    /** A key left out of the translation, with why. */
    record Dropped(int line, String key, String reason) {
    }

    /** The translated root and what was dropped (always empty when serving: serving refuses instead). */
    record Translation(YamlNode root, List<Dropped> dropped, boolean wasScg) {
    }

    private static final List<String> GATEWAY_ROOTS = List.of("spring.cloud.gateway.server.webflux",
            "spring.cloud.gateway.server.webmvc", "spring.cloud.gateway.mvc", "spring.cloud.gateway");
    private static final List<String> REDIS_ROOTS = List.of("spring.data.redis", "spring.redis");
    private static final Set<String> REDIS_KEYS = Set.of("url", "host", "port", "username", "password", "database",
            "ssl.enabled", "timeout");
    /** Paths (canonical) whose mapping values are walked into; any other path is a leaf. */
    private static final Set<String> CONTAINERS = containers();
    private static final List<String> CORS_KEYS = List.of("allowed-origins", "allowed-methods", "allowed-headers",
            "exposed-headers", "allow-credentials", "max-age");
    private static final Map<String, String> GATEWAY_REASONS = Map.ofEntries(
            Map.entry("discovery", "Loomgate has no discovery locator: write each route, on lb://NAME with the "
                    + "instances under upstreams: (or spring.cloud.discovery.client.simple.instances), or a host name "
                    + "that resolves to them (dns-refresh)"),
            Map.entry("metrics", "Loomgate's metrics are always on, at /metrics on the admin listener"),
            Map.entry("xforwarded", "Loomgate writes X-Forwarded-* itself and keeps a client's only from "
                    + "server.trusted-proxies (docs/security.md)"),
            Map.entry("forwarded", "Loomgate writes Forwarded itself and keeps a client's only from "
                    + "server.trusted-proxies (docs/security.md)"),
            Map.entry("httpclient", "set the client towards origins under upstream: (connect-timeout, "
                    + "max-connections, idle-timeout, ssl, http2)"),
            Map.entry("redisratelimiter", "the rate limiter's response headers are fixed (X-RateLimit-*)"),
            Map.entry("filter", "every built-in filter is always available; there is nothing to switch"),
            Map.entry("predicate", "every built-in predicate is always available; there is nothing to switch"),
            Map.entry("routesmap", "write the routes as a list under routes"),
            Map.entry("setstatus", "SetStatus's original-status header is not supported"),
            Map.entry("streamingmediatypes", "Loomgate streams every response as it arrives"),
            Map.entry("loadbalancer", "Loomgate's balancing is per route: load-balancer"),
            Map.entry("observability", "Loomgate's metrics are always on, at /metrics on the admin listener"));

    private final String file;
    private final boolean importing;
    private final List<Dropped> dropped = new ArrayList<>();

    private ScgLayout(String file, boolean importing) {
        this.file = file;
        this.importing = importing;
    }

    /** For serving: the root in Loomgate's layout; a key with no equivalent is a {@link ConfigException}. */
    static YamlNode translate(YamlNode root, String file) throws ConfigException {
        return new ScgLayout(file, false).run(root).root();
    }

    /** For {@code import-scg}: keys with no equivalent are dropped and listed, not refused. */
    static Translation importing(YamlNode root, String file) throws ConfigException {
        return new ScgLayout(file, true).run(root);
    }

    private record Leaf(String path, String written, YamlNode.Entry entry) {
    }

    private Translation run(YamlNode root) throws ConfigException {
        if (!(root instanceof YamlNode.Mapping mapping)) {
            return new Translation(root, List.of(), false);
        }
        YamlNode.Entry spring = null;
        Map<String, YamlNode.Entry> rest = new LinkedHashMap<>();
        for (YamlNode.Entry e : mapping.entries()) {
            String first = Section.canonical(e.key().split("\\.", -1)[0]);
            if (first.equals("spring")) {
                if (spring != null) {
                    throw new ConfigException(file, e.line(), e.key(), "spring is written twice (first at line "
                            + spring.line() + "); write it once");
                }
                spring = e;
            } else {
                rest.put(Section.canonical(e.key()), e);
            }
        }
        if (spring == null) {
            return new Translation(root, List.of(), false);
        }
        Map<String, Leaf> leaves = new LinkedHashMap<>();
        collect(List.of(spring), "", "", leaves);
        List<YamlNode.Entry> out = new ArrayList<>(mapping.entries());
        out.removeIf(e -> Section.canonical(e.key().split("\\.", -1)[0]).equals("spring"));

        String gatewayRoot = null;
        Leaf response = null;
        Leaf instances = null;
        Map<String, Leaf> responseCache = new LinkedHashMap<>();
        for (Leaf leaf : leaves.values()) {
            String root0 = gatewayRoot(leaf.path());
            if (root0 != null) {
                String rel = leaf.path().substring(root0.length() + 1);
                switch (rel) {
                    case "routes" -> {
                        checkOnce(rest, "routes", leaf);
                        gatewayRoot = sameRoot(gatewayRoot, root0, leaf);
                        out.add(new YamlNode.Entry("routes", leaf.entry().line(), routes(leaf)));
                        rest.put("routes", leaf.entry());
                    }
                    case "defaultfilters" -> {
                        checkOnce(rest, "defaultfilters", leaf);
                        out.add(new YamlNode.Entry("default-filters", leaf.entry().line(), leaf.entry().value()));
                        rest.put("defaultfilters", leaf.entry());
                    }
                    case "globalcors.corsconfigurations" -> {
                        checkOnce(rest, "cors", leaf);
                        YamlNode cors = cors(leaf);
                        if (cors != null) {
                            out.add(new YamlNode.Entry("cors", leaf.entry().line(), cors));
                            rest.put("cors", leaf.entry());
                        }
                    }
                    case "globalcors.addtosimpleurlhandlermapping" -> {
                        if (isTrue(leaf.entry().value())) {
                            refuse(leaf, "Loomgate answers a CORS preflight only on a route it matches; add a route "
                                    + "for the paths (or Method=OPTIONS) that need one");
                        }
                    }
                    case "enabled" -> {
                        if (!isTrue(leaf.entry().value())) {
                            refuse(leaf, "the gateway cannot be switched off; do not run it");
                        }
                    }
                    case "httpclient.connecttimeout" -> upstreamConnectTimeout(out, rest, leaf);
                    case "httpclient.responsetimeout" -> response = leaf;
                    case "filter.localresponsecache.enabled", "filter.localresponsecache.size",
                         "filter.localresponsecache.timetolive", "filter.localresponsecache.request.nocachestrategy",
                         "globalfilter.localresponsecache.enabled" -> responseCache.put(rel, leaf);
                    default -> refuse(leaf, GATEWAY_REASONS.getOrDefault(rel.split("\\.")[0],
                            "has no equivalent in Loomgate"));
                }
                continue;
            }
            String redisRoot = REDIS_ROOTS.stream().filter(r -> leaf.path().startsWith(r + ".")).findFirst()
                    .orElse(null);
            if (redisRoot != null) {
                continue; // read together below
            }
            switch (leaf.path()) {
                case "spring.application.name", "spring.main.webapplicationtype" -> {
                    // names the application or picks Spring's web stack: no effect on a gateway without Spring
                }
                case "spring.cloud.discovery.client.simple.instances" -> instances = leaf;
                case "spring.cloud.loadbalancer" -> refuse(leaf, "Loomgate balances per upstream: write "
                        + "load-balancer, health-check and outlier-detection under upstreams.NAME");
                default -> {
                    if (leaf.path().startsWith("spring.cloud.discovery.")) {
                        refuse(leaf, "of Spring Cloud's discovery Loomgate reads only the simple client's instances "
                                + "(spring.cloud.discovery.client.simple.instances), as upstreams:");
                    } else {
                        refuse(leaf, "a Spring setting; Loomgate is not a Spring application");
                    }
                }
            }
        }
        if (instances != null) {
            new ScgDiscoveryInstances(file, this::refuseAt).translate(instances.entry(), instances.written(), out);
        }
        if (response != null) {
            applyResponseTimeout(out, response);
        }
        globalResponseCache(responseCache, out);
        redis(leaves, out, rest);
        return new Translation(new YamlNode.Mapping(List.copyOf(out), mapping.line()), List.copyOf(dropped), true);
    }

    /**
     * SCG's {@code filter.local-response-cache.*}: with {@code enabled: true} (and
     * {@code global-filter.local-response-cache.enabled} not false, SCG's default) every route gets a response cache,
     * one store for all of them, with {@code size} and {@code time-to-live}: here a {@code LocalResponseCache} in
     * {@code default-filters}, which a route's own {@code LocalResponseCache} replaces, as in SCG. Without the global
     * cache, size and time-to-live would be the route filters' defaults, which Loomgate does not have: refused, with
     * where to write them. {@code request.no-cache-strategy} is kept only at SCG's default, skip-update-cache-entry.
     */
    private void globalResponseCache(Map<String, Leaf> keys, List<YamlNode.Entry> out) throws ConfigException {
        Leaf strategy = keys.get("filter.localresponsecache.request.nocachestrategy");
        if (strategy != null && !(strategy.entry().value() instanceof YamlNode.Scalar sc
                && sc.text().trim().replace('-', '_').equalsIgnoreCase("SKIP_UPDATE_CACHE_ENTRY"))) {
            refuse(strategy, "Loomgate's cache keeps an entry when a client's no-cache fetches a fresh answer "
                    + "(skip-update-cache-entry); update-cache-entry is not supported");
        }
        Leaf enabled = keys.get("filter.localresponsecache.enabled");
        Leaf global = keys.get("globalfilter.localresponsecache.enabled");
        boolean on = enabled != null && isTrue(enabled.entry().value())
                && (global == null || isTrue(global.entry().value()));
        Leaf size = keys.get("filter.localresponsecache.size");
        Leaf ttl = keys.get("filter.localresponsecache.timetolive");
        if (!on) {
            for (Leaf l : new Leaf[] {size, ttl}) {
                if (l != null) {
                    refuse(l, "without the global cache (filter.local-response-cache.enabled: true and "
                            + "global-filter.local-response-cache.enabled not false) it is a default for routes' "
                            + "LocalResponseCache filters, which Loomgate has not: write it on each, "
                            + "LocalResponseCache=timeToLive,size");
                }
            }
            return;
        }
        Map<String, YamlNode> args = new LinkedHashMap<>();
        if (ttl != null) {
            args.put("timeToLive", ttl.entry().value());
        }
        if (size != null) {
            args.put("size", size.entry().value());
        }
        List<YamlNode.Entry> argEntries = new ArrayList<>();
        args.forEach((k, v) -> argEntries.add(new YamlNode.Entry(k, v.line(), v)));
        YamlNode filter = new YamlNode.Mapping(List.of(
                new YamlNode.Entry("name", enabled.entry().line(), new YamlNode.Scalar("LocalResponseCache",
                        enabled.entry().line(), false, false)),
                new YamlNode.Entry("args", enabled.entry().line(),
                        new YamlNode.Mapping(List.copyOf(argEntries), enabled.entry().line()))),
                enabled.entry().line());
        for (int i = 0; i < out.size(); i++) {
            YamlNode.Entry e = out.get(i);
            if (Section.canonical(e.key()).equals("defaultfilters") && e.value() instanceof YamlNode.Sequence seq) {
                List<YamlNode> items = new ArrayList<>(seq.items());
                items.add(filter);
                out.set(i, new YamlNode.Entry(e.key(), e.line(), new YamlNode.Sequence(List.copyOf(items),
                        seq.line())));
                return;
            }
        }
        out.add(new YamlNode.Entry("default-filters", enabled.entry().line(),
                new YamlNode.Sequence(List.of(filter), enabled.entry().line())));
    }

    private static String gatewayRoot(String path) {
        for (String r : GATEWAY_ROOTS) {
            if (path.startsWith(r + ".")) {
                return r;
            }
        }
        return null;
    }

    private String sameRoot(String before, String now, Leaf leaf) throws ConfigException {
        if (before != null && !before.equals(now)) {
            throw new ConfigException(file, leaf.entry().line(), leaf.written(), "routes are also under "
                    + before + "; keep them in one place");
        }
        return now;
    }

    /** One source for each Loomgate key: the native key and SCG's cannot both be written. */
    private void checkOnce(Map<String, YamlNode.Entry> taken, String key, Leaf leaf) throws ConfigException {
        YamlNode.Entry other = taken.get(key);
        if (other != null) {
            throw new ConfigException(file, leaf.entry().line(), leaf.written(), "is also written at line "
                    + other.line() + "; keep one");
        }
    }

    /**
     * Walks the {@code spring} subtree. Keys may be dotted ({@code cloud.gateway:}) or nested, and bind loosely
     * ({@code default-filters}, {@code defaultFilters}); a path written twice either way is refused.
     */
    private void collect(List<YamlNode.Entry> entries, String path, String written, Map<String, Leaf> leaves)
            throws ConfigException {
        for (YamlNode.Entry e : entries) {
            StringBuilder canonical = new StringBuilder(path);
            for (String part : e.key().split("\\.", -1)) {
                canonical.append(canonical.isEmpty() ? "" : ".").append(Section.canonical(part));
            }
            String p = canonical.toString();
            String w = written.isEmpty() ? e.key() : written + "." + e.key();
            if (CONTAINERS.contains(p) && e.value() instanceof YamlNode.Mapping m) {
                collect(m.entries(), p, w, leaves);
                continue;
            }
            if (CONTAINERS.contains(p) && e.value() instanceof YamlNode.Scalar sc && sc.isNull()) {
                continue;
            }
            Leaf before = leaves.putIfAbsent(p, new Leaf(p, w, e));
            if (before != null) {
                throw new ConfigException(file, e.line(), w, "is written twice (first at line "
                        + before.entry().line() + ")");
            }
        }
    }

    private static Set<String> containers() {
        List<String> out = new ArrayList<>(List.of("spring", "spring.cloud", "spring.cloud.gateway",
                "spring.cloud.gateway.server", "spring.data", "spring.data.redis", "spring.data.redis.ssl",
                "spring.redis", "spring.redis.ssl", "spring.application", "spring.main", "spring.cloud.discovery",
                "spring.cloud.discovery.client", "spring.cloud.discovery.client.simple"));
        for (String r : GATEWAY_ROOTS) {
            out.add(r);
            out.add(r + ".globalcors");
            out.add(r + ".httpclient");
            out.add(r + ".filter");
            out.add(r + ".filter.localresponsecache");
            out.add(r + ".filter.localresponsecache.request");
            out.add(r + ".globalfilter");
            out.add(r + ".globalfilter.localresponsecache");
        }
        return Set.copyOf(out);
    }

    /** Refused when serving; dropped and listed when importing. A mapping is refused at its first leaf. */
    private void refuse(Leaf leaf, String reason) throws ConfigException {
        refuse(leaf, reason, true);
    }

    private void refuse(Leaf leaf, String reason, boolean atFirstLeaf) throws ConfigException {
        String key = leaf.written();
        YamlNode node = leaf.entry().value();
        int line = leaf.entry().line();
        while (atFirstLeaf && node instanceof YamlNode.Mapping m && !m.entries().isEmpty()) {
            YamlNode.Entry first = m.entries().getFirst();
            key = key + "." + first.key();
            line = first.line();
            node = first.value();
        }
        refuseAt(line, key, reason);
    }

    private void refuseAt(int line, String key, String reason) throws ConfigException {
        if (importing) {
            dropped.add(new Dropped(line, key, reason));
            return;
        }
        throw new ConfigException(file, line, key, "not supported: " + reason);
    }

    private static boolean isTrue(YamlNode n) {
        return n instanceof YamlNode.Scalar s && s.text().trim().equalsIgnoreCase("true");
    }

    /** The routes list, each route's {@code metadata} timeouts moved to Loomgate's {@code timeout}. */
    private YamlNode routes(Leaf leaf) throws ConfigException {
        if (!(leaf.entry().value() instanceof YamlNode.Sequence seq)) {
            return leaf.entry().value(); // RouteReader says what was expected
        }
        List<YamlNode> items = new ArrayList<>();
        for (int i = 0; i < seq.items().size(); i++) {
            items.add(route(seq.items().get(i), leaf.written() + "[" + i + "]"));
        }
        return new YamlNode.Sequence(List.copyOf(items), seq.line());
    }

    private YamlNode route(YamlNode node, String written) throws ConfigException {
        if (!(node instanceof YamlNode.Mapping m)) {
            return node;
        }
        List<YamlNode.Entry> out = new ArrayList<>();
        for (YamlNode.Entry e : m.entries()) {
            if (Section.canonical(e.key()).equals("uri")) {
                out.add(new YamlNode.Entry(e.key(), e.line(), withoutPath(e.value(), written + ".uri")));
                continue;
            }
            if (!Section.canonical(e.key()).equals("metadata")) {
                out.add(e);
                continue;
            }
            if (!(e.value() instanceof YamlNode.Mapping meta)) {
                continue;
            }
            for (YamlNode.Entry k : meta.entries()) {
                Leaf leaf = new Leaf("", written + ".metadata." + k.key(), k);
                switch (Section.canonical(k.key())) {
                    case "responsetimeout" -> {
                        String text = k.value() instanceof YamlNode.Scalar s ? s.text().trim() : "";
                        if (text.startsWith("-")) {
                            refuse(leaf, "every route has a timeout in Loomgate; write a long one instead of -1");
                            continue;
                        }
                        out.add(new YamlNode.Entry("timeout", k.line(), milliseconds(k.value())));
                    }
                    case "connecttimeout" -> refuse(leaf, "the connect timeout is the gateway's, not a route's: "
                            + "upstream.connect-timeout");
                    default -> refuse(leaf, "route metadata is for Spring code; Loomgate has none to read it");
                }
            }
        }
        return new YamlNode.Mapping(List.copyOf(out), m.line());
    }

    /**
     * SCG (WebFlux) takes only the scheme, host and port of a route's {@code uri}: the request's own path and query
     * go to the origin ({@code RouteToRequestUrlFilter}). So {@code http://localhost:8080/flakey} means
     * {@code http://localhost:8080} there, and here. Importing notes it; Loomgate's own layout refuses such a uri.
     */
    private YamlNode withoutPath(YamlNode value, String written) {
        if (!(value instanceof YamlNode.Scalar s) || s.isNull()) {
            return value;
        }
        String text = s.text().trim();
        int scheme = text.indexOf("://");
        String lower = text.toLowerCase(java.util.Locale.ROOT);
        if (scheme < 0 || !(lower.startsWith("http://") || lower.startsWith("https://"))) {
            return value;
        }
        int end = text.length();
        for (char c : new char[] {'/', '?'}) {
            int at = text.indexOf(c, scheme + 3);
            if (at >= 0) {
                end = Math.min(end, at);
            }
        }
        String rest = text.substring(end);
        if (rest.isEmpty() || rest.equals("/") || rest.indexOf('#') >= 0) {
            return value; // nothing to drop, or a fragment, which UpstreamUri refuses
        }
        if (importing) {
            dropped.add(new Dropped(s.line(), written, "'" + rest + "' dropped: SCG sends the request's own path and "
                    + "query, not the route uri's"));
        }
        return new YamlNode.Scalar(text.substring(0, end), s.line(), false, false);
    }

    /** Spring binds a bare number as milliseconds; Loomgate's durations need a unit. */
    private static YamlNode milliseconds(YamlNode value) {
        if (value instanceof YamlNode.Scalar s && s.text().trim().matches("\\d+")) {
            return new YamlNode.Scalar(s.text().trim() + "ms", s.line(), false, false);
        }
        return value;
    }

    /** {@code httpclient.response-timeout}: the default of every route without its own timeout. */
    private void applyResponseTimeout(List<YamlNode.Entry> out, Leaf leaf) {
        YamlNode timeout = milliseconds(leaf.entry().value());
        for (int i = 0; i < out.size(); i++) {
            YamlNode.Entry e = out.get(i);
            if (!e.key().equals("routes") || !(e.value() instanceof YamlNode.Sequence seq)) {
                continue;
            }
            List<YamlNode> routes = new ArrayList<>();
            for (YamlNode r : seq.items()) {
                if (r instanceof YamlNode.Mapping m
                        && m.entries().stream().noneMatch(x -> Section.canonical(x.key()).equals("timeout"))) {
                    List<YamlNode.Entry> with = new ArrayList<>(m.entries());
                    with.add(new YamlNode.Entry("timeout", leaf.entry().line(), timeout));
                    r = new YamlNode.Mapping(List.copyOf(with), m.line());
                }
                routes.add(r);
            }
            out.set(i, new YamlNode.Entry(e.key(), e.line(), new YamlNode.Sequence(List.copyOf(routes), seq.line())));
        }
    }

    /** {@code httpclient.connect-timeout} (milliseconds) is {@code upstream.connect-timeout}. */
    private void upstreamConnectTimeout(List<YamlNode.Entry> out, Map<String, YamlNode.Entry> rest, Leaf leaf)
            throws ConfigException {
        YamlNode.Entry timeout = new YamlNode.Entry("connect-timeout", leaf.entry().line(),
                milliseconds(leaf.entry().value()));
        YamlNode.Entry upstream = rest.get("upstream");
        if (upstream == null) {
            out.add(new YamlNode.Entry("upstream", leaf.entry().line(),
                    new YamlNode.Mapping(List.of(timeout), leaf.entry().line())));
            rest.put("upstream", leaf.entry());
            return;
        }
        if (!(upstream.value() instanceof YamlNode.Mapping m)) {
            return; // the upstream section's reader says what is wrong with it
        }
        for (YamlNode.Entry e : m.entries()) {
            if (Section.canonical(e.key()).equals("connecttimeout")) {
                throw new ConfigException(file, leaf.entry().line(), leaf.written(), "upstream.connect-timeout "
                        + "(line " + e.line() + ") says it too; keep one");
            }
        }
        List<YamlNode.Entry> with = new ArrayList<>(m.entries());
        with.add(timeout);
        out.set(out.indexOf(upstream), new YamlNode.Entry(upstream.key(), upstream.line(),
                new YamlNode.Mapping(List.copyOf(with), m.line())));
    }

    /**
     * {@code globalcors.cors-configurations}: Loomgate has one policy for every path, so only {@code '[/**]'} is
     * taken. Keys bind loosely as Spring's do; {@code maxAge} in bare seconds becomes a duration.
     */
    private YamlNode cors(Leaf leaf) throws ConfigException {
        if (!(leaf.entry().value() instanceof YamlNode.Mapping paths)) {
            refuse(leaf, "expected a mapping of path patterns to CORS settings");
            return null;
        }
        YamlNode.Mapping policy = null;
        for (YamlNode.Entry p : paths.entries()) {
            String pattern = p.key().trim();
            if (!pattern.equals("[/**]") && !pattern.equals("/**")) {
                refuse(new Leaf("", leaf.written() + "." + p.key(), p), "Loomgate's global CORS policy covers "
                        + "every path ('[/**]'); give a route its own with the Cors filter", false);
                continue;
            }
            if (!(p.value() instanceof YamlNode.Mapping m)) {
                throw new ConfigException(file, p.line(), leaf.written() + "." + p.key(),
                        "expected a mapping of CORS settings, got " + p.value().describe());
            }
            policy = m;
        }
        if (policy == null) {
            return null;
        }
        Map<String, String> names = new LinkedHashMap<>();
        CORS_KEYS.forEach(k -> names.put(Section.canonical(k), k));
        List<YamlNode.Entry> out = new ArrayList<>();
        for (YamlNode.Entry e : policy.entries()) {
            String key = names.get(Section.canonical(e.key()));
            Leaf at = new Leaf("", leaf.written() + ".'[/**]'." + e.key(), e);
            if (key == null) {
                refuse(at, Section.canonical(e.key()).equals("allowedoriginpatterns")
                        ? "Loomgate matches exact origins; list them in allowedOrigins"
                        : "has no equivalent in Loomgate's CORS (" + String.join(", ", CORS_KEYS) + ")");
                continue;
            }
            YamlNode value = e.value();
            if (key.equals("max-age") && value instanceof YamlNode.Scalar s && s.text().trim().matches("\\d+")) {
                value = new YamlNode.Scalar(s.text().trim() + "s", s.line(), false, false); // Spring: seconds
            }
            out.add(new YamlNode.Entry(key, e.line(), value));
        }
        return new YamlNode.Mapping(List.copyOf(out), policy.line());
    }

    /** {@code spring.data.redis.*} (or Boot 2's {@code spring.redis.*}) as the {@code redis.url} it means. */
    private void redis(Map<String, Leaf> leaves, List<YamlNode.Entry> out, Map<String, YamlNode.Entry> rest)
            throws ConfigException {
        Map<String, Leaf> keys = new LinkedHashMap<>();
        String root = null;
        for (Leaf leaf : leaves.values()) {
            for (String r : REDIS_ROOTS) {
                if (leaf.path().startsWith(r + ".")) {
                    if (root != null && !root.equals(r)) {
                        throw new ConfigException(file, leaf.entry().line(), leaf.written(), "Redis is also set "
                                + "under " + root + "; keep one");
                    }
                    root = r;
                    keys.put(leaf.path().substring(r.length() + 1), leaf);
                }
            }
        }
        if (keys.isEmpty()) {
            return;
        }
        Leaf first = keys.values().iterator().next();
        if (rest.containsKey("redis")) {
            throw new ConfigException(file, first.entry().line(), first.written(), "redis: (line "
                    + rest.get("redis").line() + ") says it too; keep one");
        }
        List<YamlNode.Entry> redis = new ArrayList<>();
        String url = null;
        int urlLine = first.entry().line();
        String host = "localhost";
        String port = "6379";
        String user = "";
        String password = null;
        String database = "";
        boolean tls = false;
        for (Map.Entry<String, Leaf> k : keys.entrySet()) {
            Leaf leaf = k.getValue();
            String text = leaf.entry().value() instanceof YamlNode.Scalar s ? s.text().trim() : null;
            if (text == null && REDIS_KEYS.contains(k.getKey())) {
                throw new ConfigException(file, leaf.entry().line(), leaf.written(), "expected a value, got "
                        + leaf.entry().value().describe());
            }
            switch (k.getKey()) {
                case "url" -> {
                    url = text;
                    urlLine = leaf.entry().line();
                }
                case "host" -> host = text;
                case "port" -> port = text;
                case "username" -> user = text;
                case "password" -> password = text;
                case "database" -> database = text.equals("0") ? "" : "/" + text;
                case "ssl.enabled" -> tls = text.equalsIgnoreCase("true");
                case "timeout" -> redis.add(new YamlNode.Entry("timeout", leaf.entry().line(),
                        milliseconds(leaf.entry().value())));
                default -> refuse(leaf, "a Spring Data Redis setting with no equivalent; Loomgate's redis: has "
                        + "url, timeout, max-connections and ca-file");
            }
        }
        if (url == null) {
            String auth = password == null ? (user.isEmpty() ? "" : enc(user) + "@")
                    : enc(user) + ":" + enc(password) + "@";
            url = (tls ? "rediss://" : "redis://") + auth + (host.contains(":") ? "[" + host + "]" : host) + ":"
                    + port + database;
        }
        redis.addFirst(new YamlNode.Entry("url", urlLine, new YamlNode.Scalar(url, urlLine, false, false)));
        out.add(new YamlNode.Entry("redis", first.entry().line(), new YamlNode.Mapping(List.copyOf(redis),
                first.entry().line())));
    }

    /** Percent-encodes what a URL's user info cannot hold as is. */
    private static String enc(String s) {
        return java.net.URLEncoder.encode(s, java.nio.charset.StandardCharsets.UTF_8).replace("+", "%20");
    }
}
