package io.loomgate.config;

import io.loomgate.upstream.Balancing;
import io.loomgate.upstream.PoolSettings;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads the top-level {@code upstreams:} section: a mapping of service name to its origins ({@code uri} or
 * {@code uris}, as a route writes them), {@code pool}, {@code load-balancer}, {@code hash}, {@code health-check},
 * {@code outlier-detection}, {@code dns-refresh} and {@code circuit-breaker}. Routes name one with
 * {@code uri: lb://NAME}.
 */
final class UpstreamsReader {
    static final List<String> KEYS = List.of("uri", "uris", "pool", "load-balancer", "hash", "health-check",
            "outlier-detection", "dns-refresh", "circuit-breaker");
    /** The filter {@code circuit-breaker:} makes: its keys are that filter's arguments. */
    static final String BREAKER_FILTER = "CircuitBreaker";

    private UpstreamsReader() {
    }

    /** The upstreams in file order, by name; empty without the section. */
    static Map<String, UpstreamSpec> read(String file, Section root, PoolSettings defaults) throws ConfigException {
        YamlNode node = root.node("upstreams");
        if (node == null || node instanceof YamlNode.Scalar sc && sc.isNull()) {
            return Map.of();
        }
        if (!(node instanceof YamlNode.Mapping mapping)) {
            throw root.error("upstreams", "expected a mapping of service name to its uri or uris (and pool, "
                    + "load-balancer, health-check...), got " + node.describe());
        }
        Map<String, UpstreamSpec> out = new LinkedHashMap<>();
        for (YamlNode.Entry e : mapping.entries()) {
            String name = e.key();
            if (!validName(name)) {
                throw new ConfigException(file, e.line(), "upstreams", "'" + name + "': a service name is letters, "
                        + "digits, '.', '_' and '-' (it is the host part of lb://NAME)");
            }
            out.put(name, upstream(file, name, e, defaults));
        }
        return Collections.unmodifiableMap(out);
    }

    /** What {@code lb://NAME} may name: a URI host's letters, without a port or a path. */
    static boolean validName(String name) {
        return name.matches("[A-Za-z0-9][A-Za-z0-9._-]*");
    }

    private static UpstreamSpec upstream(String file, String name, YamlNode.Entry e, PoolSettings defaults)
            throws ConfigException {
        String path = "upstreams." + name;
        if (e.value() instanceof YamlNode.Scalar sc && sc.isNull() || !(e.value() instanceof YamlNode.Mapping)) {
            throw new ConfigException(file, e.line(), path, "expected a mapping with uri or uris (and pool, "
                    + "load-balancer, health-check...), got " + e.value().describe());
        }
        Section s = Section.dotted(file, path, e.value(), e.line(), KEYS);
        BalancingReader.Origins origins = BalancingReader.origins(file, s, path);
        Balancing balancing = BalancingReader.balancing(file, s, origins.weights());
        BalancingReader.checkGrpcHealth(s, origins.uris(), balancing);
        return new UpstreamSpec(name, e.line(), origins.uris(), pool(file, s, path, defaults), balancing,
                RouteReader.dnsRefresh(s), breaker(file, s, name));
    }

    /** {@code pool:}, each absent key as the {@code upstream:} section says. */
    private static PoolSettings pool(String file, Section s, String path, PoolSettings defaults)
            throws ConfigException {
        return PoolReader.read(Section.dotted(file, path + ".pool", s.node("pool"), s.lineOf("pool"),
                PoolReader.KEYS), defaults);
    }

    /**
     * {@code circuit-breaker: {failure-rate-threshold: 50, fallbackUri: forward:/down, ...}}: the CircuitBreaker
     * filter's own arguments; {@code name} defaults to the upstream's, so every route on it shares one breaker.
     */
    private static RouteSpec.ComponentSpec breaker(String file, Section s, String name) throws ConfigException {
        YamlNode n = s.node("circuit-breaker");
        if (n == null || n instanceof YamlNode.Scalar sc && sc.isNull()) {
            return null;
        }
        String key = s.childName("circuit-breaker");
        if (!(n instanceof YamlNode.Mapping m)) {
            throw s.error("circuit-breaker", "expected a mapping of the CircuitBreaker filter's arguments "
                    + "(failure-rate-threshold, fallbackUri, statusCodes...), got " + n.describe());
        }
        Map<String, String> args = new LinkedHashMap<>();
        Map<String, Integer> lines = new LinkedHashMap<>();
        args.put("name", name);
        for (YamlNode.Entry a : m.entries()) {
            args.put(a.key(), RouteReader.argValue(s, "circuit-breaker." + a.key(), a.value()));
            lines.put(a.key(), a.line());
        }
        return new RouteSpec.ComponentSpec(BREAKER_FILTER, args, n.line(), lines, key);
    }
}
