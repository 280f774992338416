package io.loomgate.route;

import java.util.List;
import java.util.Map;

/**
 * Holds when the Host header's name (port ignored, case ignored, a trailing dot dropped) matches one of the
 * patterns; binds the first matching pattern's variables. {@code Host=**.example.com,{sub}.example.org}.
 * A request without Host never matches.
 */
record HostPredicate(List<PathPattern> patterns) implements RoutePredicate {
    static final PredicateFactory FACTORY = new BuiltinPredicateFactory("Host", List.of("patterns"), true,
            args -> new HostPredicate(args.list("patterns").stream().map(PathPattern::host).toList()));

    HostPredicate {
        patterns = List.copyOf(patterns);
    }

    @Override
    public boolean test(PredicateContext context) {
        String host = context.request().headers().first("Host");
        if (host == null) {
            return false;
        }
        String name = hostName(host.trim());
        for (PathPattern pattern : patterns) {
            Map<String, String> vars = pattern.match(name);
            if (vars != null) {
                context.variables().putAll(vars);
                return true;
            }
        }
        return false;
    }

    /** The host without its port: {@code [::1]:8080} gives {@code [::1]}, {@code a.example.com.:80} gives
     * {@code a.example.com}. */
    static String hostName(String host) {
        String name = host;
        if (host.startsWith("[")) {
            int close = host.indexOf(']');
            name = close < 0 ? host : host.substring(0, close + 1);
        } else {
            int colon = host.indexOf(':');
            if (colon >= 0 && colon == host.lastIndexOf(':')) {
                name = host.substring(0, colon);
            }
        }
        return name.endsWith(".") ? name.substring(0, name.length() - 1) : name;
    }
}
