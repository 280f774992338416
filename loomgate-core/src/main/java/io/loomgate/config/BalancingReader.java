package io.loomgate.config;

import io.loomgate.upstream.Balancing;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads a route's upstream keys: {@code uri} or {@code uris} (each {@code http://host:port}, optionally
 * {@code ;weight=N}, or the expanded {@code {uri, weight}}), {@code load-balancer}, {@code hash: {key}},
 * {@code health-check: {...}} and {@code outlier-detection: {...}}. Every mistake names the file, line and key.
 */
final class BalancingReader {
    static final List<String> ROUTE_KEYS = List.of("load-balancer", "hash", "health-check", "outlier-detection");
    private static final List<String> HASH_KEYS = List.of("key");
    private static final List<String> HEALTH_KEYS = List.of("path", "interval", "timeout", "healthy-threshold",
            "unhealthy-threshold", "expected-statuses", "grpc", "grpc-service");
    private static final List<String> OUTLIER_KEYS = List.of("consecutive-failures", "base-ejection-time",
            "max-ejection-percent");
    private static final List<String> URI_KEYS = List.of("uri", "weight");

    /** The route's origins with their weights, in the order written. */
    record Origins(List<URI> uris, List<Integer> weights) {
    }

    private BalancingReader() {
    }

    static Origins origins(String file, Section s, String context) throws ConfigException {
        if (s.has("uri") && s.has("uris")) {
            throw new ConfigException(file, Math.max(s.lineOf("uri"), s.lineOf("uris")), context,
                    "has both 'uri' and 'uris'; write one of them");
        }
        if (!s.has("uri") && !s.has("uris")) {
            throw new ConfigException(file, s.line(), context, "needs 'uri' (one origin) or 'uris' (a list)");
        }
        List<URI> uris = new ArrayList<>();
        List<Integer> weights = new ArrayList<>();
        if (s.has("uri")) {
            weighted(s, "uri", s.lineOf("uri"), s.string("uri", null), uris, weights);
            return new Origins(List.copyOf(uris), List.copyOf(weights));
        }
        List<YamlNode> items = s.list("uris");
        if (items.isEmpty()) {
            throw s.error("uris", "expected at least one uri");
        }
        for (int i = 0; i < items.size(); i++) {
            String key = "uris[" + i + "]";
            YamlNode item = items.get(i);
            if (item instanceof YamlNode.Scalar sc && !sc.isNull()) {
                weighted(s, key, item.line(), sc.text(), uris, weights);
            } else if (item instanceof YamlNode.Mapping) {
                Section u = Section.context(file, s.childName(key), item, URI_KEYS);
                String text = u.string("uri", null);
                if (text == null) {
                    throw new ConfigException(file, item.line(), s.childName(key), "missing 'uri'");
                }
                uris.add(uri(u, "uri", u.lineOf("uri"), text));
                weights.add(u.integer("weight", 1, 1, 1000));
            } else {
                throw s.error(key, item.line(), "expected a uri or a mapping with uri and weight, got "
                        + item.describe());
            }
        }
        return new Origins(List.copyOf(uris), List.copyOf(weights));
    }

    /** {@code http://host:port} with an optional {@code ;weight=N}. */
    private static void weighted(Section s, String key, int line, String text, List<URI> uris, List<Integer> weights)
            throws ConfigException {
        int semi = text.indexOf(';');
        int weight = 1;
        String base = text;
        if (semi >= 0) {
            base = text.substring(0, semi).trim();
            String param = text.substring(semi + 1).trim();
            if (!param.matches("weight=\\d{1,4}") || Integer.parseInt(param.substring(7)) < 1
                    || Integer.parseInt(param.substring(7)) > 1000) {
                throw s.error(key, line, "expected ';weight=N' with N from 1 to 1000 after the uri, got ';" + param
                        + "'");
            }
            weight = Integer.parseInt(param.substring(7));
        }
        uris.add(uri(s, key, line, base));
        weights.add(weight);
    }

    private static URI uri(Section s, String key, int line, String text) throws ConfigException {
        try {
            return UpstreamUri.parse(text).toUri();
        } catch (IllegalArgumentException e) {
            throw s.error(key, line, e.getMessage());
        }
    }

    /** The route's balancing, for endpoints with these weights. */
    static Balancing balancing(String file, Section s, List<Integer> weights) throws ConfigException {
        String name = s.string("load-balancer", Balancing.Policy.LEAST_REQUEST.configName());
        Balancing.Policy policy = Balancing.Policy.named(name);
        if (policy == null) {
            List<String> names = new ArrayList<>();
            for (Balancing.Policy p : Balancing.Policy.values()) {
                names.add(p.configName());
            }
            throw s.error("load-balancer", "expected one of " + String.join(", ", names) + ", got '" + name + "'"
                    + DidYouMean.hint(name, names));
        }
        String hashKey = null;
        if (s.has("hash")) {
            Section h = Section.context(file, s.childName("hash"), s.node("hash"), HASH_KEYS);
            hashKey = h.string("key", null);
            if (hashKey == null) {
                throw h.error("key", "expected key: header:NAME, cookie:NAME or client-ip");
            }
            if (policy != Balancing.Policy.HASH) {
                throw s.error("hash", "a hash key needs load-balancer: hash");
            }
        } else if (policy == Balancing.Policy.HASH) {
            throw s.error("load-balancer", "load-balancer: hash needs hash: { key: header:NAME | cookie:NAME | "
                    + "client-ip }");
        }
        Balancing.HealthCheck check = s.has("health-check") ? healthCheck(file, s) : null;
        Balancing.OutlierDetection outliers = s.has("outlier-detection") ? outliers(file, s) : null;
        try {
            return new Balancing(policy, hashKey, weights, check, outliers);
        } catch (IllegalArgumentException e) {
            throw s.error(hashKey != null ? "hash" : "load-balancer", e.getMessage());
        }
    }

    private static Balancing.HealthCheck healthCheck(String file, Section s) throws ConfigException {
        Section h = Section.context(file, s.childName("health-check"), s.node("health-check"), HEALTH_KEYS);
        Balancing.HealthCheck d = Balancing.HealthCheck.DEFAULTS;
        String path = h.string("path", d.path());
        if (!path.startsWith("/")) {
            throw h.error("path", "must start with '/', got '" + path + "'");
        }
        int min = d.minStatus();
        int max = d.maxStatus();
        String statuses = h.string("expected-statuses", null);
        if (statuses != null) {
            String t = statuses.trim();
            if (!t.matches("[1-5]\\d\\d(-[1-5]\\d\\d)?")) {
                throw h.error("expected-statuses", "expected a status or a range like 200-399, got '" + statuses + "'");
            }
            min = Integer.parseInt(t.substring(0, 3));
            max = t.length() > 3 ? Integer.parseInt(t.substring(4)) : min;
            if (min > max) {
                throw h.error("expected-statuses", "the range's start is above its end: '" + statuses + "'");
            }
        }
        return new Balancing.HealthCheck(path, h.duration("interval", d.interval(), false),
                h.duration("timeout", d.timeout(), false), h.integer("healthy-threshold", d.healthyThreshold(), 1, 100),
                h.integer("unhealthy-threshold", d.unhealthyThreshold(), 1, 100), min, max,
                grpcService(h));
    }

    /** A gRPC health check needs HTTP/2: refused for {@code http://} origins, which the gateway speaks HTTP/1.1 to. */
    static void checkGrpcHealth(Section s, List<URI> uris, Balancing balancing) throws ConfigException {
        if (balancing.healthCheck() == null || !balancing.healthCheck().grpc()) {
            return;
        }
        for (URI u : uris) {
            if ("http".equalsIgnoreCase(u.getScheme())) {
                throw s.error("health-check", "a gRPC health check needs HTTP/2 to the origin (h2c:// or https:// "
                        + "with upstream.http2), but " + u + " is HTTP/1.1");
            }
        }
    }

    /**
     * {@code grpc: true} (and {@code grpc-service}, "" by default: the server as a whole) make the check a call of
     * the gRPC health service; null: a GET of the path.
     */
    private static String grpcService(Section h) throws ConfigException {
        String service = h.string("grpc-service", null);
        boolean grpc = h.bool("grpc", service != null);
        if (service != null && !grpc) {
            throw h.error("grpc-service", "is for gRPC health checks: set grpc: true, or remove it");
        }
        return grpc ? (service == null ? "" : service.trim()) : null;
    }

    private static Balancing.OutlierDetection outliers(String file, Section s) throws ConfigException {
        Section o = Section.context(file, s.childName("outlier-detection"), s.node("outlier-detection"),
                OUTLIER_KEYS);
        Balancing.OutlierDetection d = Balancing.OutlierDetection.DEFAULTS;
        return new Balancing.OutlierDetection(o.integer("consecutive-failures", d.consecutiveFailures(), 1, 1000),
                o.duration("base-ejection-time", d.baseEjectionTime(), false),
                o.integer("max-ejection-percent", d.maxEjectionPercent(), 0, 100));
    }
}
