package io.loomgate.route;

import java.util.List;
import java.util.Set;

/**
 * Holds when the request method is one of the listed methods: {@code Method=GET,POST}. Methods are written in
 * upper case in requests; configuration is upper-cased so {@code get} means GET.
 */
record MethodPredicate(Set<String> methods) implements RoutePredicate {
    static final PredicateFactory FACTORY = new BuiltinPredicateFactory("Method", List.of("methods"), true,
            args -> new MethodPredicate(Set.copyOf(args.methods("methods", null))));

    MethodPredicate {
        methods = Set.copyOf(methods);
    }

    @Override
    public boolean test(PredicateContext context) {
        return methods.contains(context.request().method());
    }
}
