package io.loomgate.route;

import io.loomgate.extension.ExtensionArgs;
import java.util.List;
import java.util.Map;

/**
 * Holds when the raw request path (before {@code ?}, never decoded) matches one of the patterns; binds the first
 * matching pattern's variables. {@code Path=/users/**,/accounts/{id}}. With {@code matchTrailingSlash} (default
 * true, as in Spring Cloud Gateway) a path with one trailing '/' also matches the pattern written without it.
 * Targets that are not origin-form ({@code *}, absolute-form) never match.
 */
record PathPredicate(List<PathPattern> patterns, boolean matchTrailingSlash) implements RoutePredicate {
    static final PredicateFactory FACTORY = new BuiltinPredicateFactory("Path",
            List.of("patterns", "matchTrailingSlash"), true, PathPredicate::create);

    PathPredicate {
        patterns = List.copyOf(patterns);
    }

    /** Spring Cloud Gateway's shorthand puts the flag last: {@code Path=/a,/b,false}. */
    private static PathPredicate create(ExtensionArgs args) {
        List<String> items = args.list("patterns");
        boolean flag = args.bool("matchTrailingSlash", true);
        String last = items.get(items.size() - 1);
        if (items.size() > 1 && (last.equalsIgnoreCase("true") || last.equalsIgnoreCase("false"))) {
            flag = last.equalsIgnoreCase("true");
            items = items.subList(0, items.size() - 1);
        }
        return new PathPredicate(items.stream().map(PathPattern::path).toList(), flag);
    }

    @Override
    public boolean test(PredicateContext context) {
        String path = context.request().path();
        boolean trimmed = matchTrailingSlash && path.length() > 1 && path.endsWith("/");
        for (int i = 0, n = patterns.size(); i < n; i++) { // no iterator per request (see RouteTable.match)
            PathPattern pattern = patterns.get(i);
            Map<String, String> vars = pattern.match(path);
            if (vars == null && trimmed) {
                vars = pattern.match(path.substring(0, path.length() - 1));
            }
            if (vars != null) {
                if (!vars.isEmpty()) {
                    context.variables().putAll(vars);
                }
                return true;
            }
        }
        return false;
    }
}
