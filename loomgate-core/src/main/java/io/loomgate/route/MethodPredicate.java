package io.loomgate.route;

import io.loomgate.http.Tokens;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Holds when the request method is one of the listed methods: {@code Method=GET,POST}. Methods are written in
 * upper case in requests; configuration is upper-cased so {@code get} means GET.
 */
record MethodPredicate(Set<String> methods) implements RoutePredicate {
    static final PredicateFactory FACTORY = new BuiltinPredicateFactory("Method", List.of("methods"), true,
            args -> new MethodPredicate(methods(args.list("methods"))));

    MethodPredicate {
        methods = Set.copyOf(methods);
    }

    private static Set<String> methods(List<String> written) {
        for (String m : written) {
            if (!Tokens.isToken(m)) {
                throw new IllegalArgumentException("methods: '" + m + "' is not a method name");
            }
        }
        return Set.copyOf(written.stream().map(m -> m.toUpperCase(Locale.ROOT)).distinct().toList());
    }

    @Override
    public boolean test(PredicateContext context) {
        return methods.contains(context.request().method());
    }
}
