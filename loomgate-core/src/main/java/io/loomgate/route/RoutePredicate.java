package io.loomgate.route;

/**
 * A condition on a request. Implementations are immutable and thread-safe; they may bind template variables
 * ({@code {name}} in a Path pattern) into the context. Users add their own by registering a predicate factory.
 */
@FunctionalInterface
public interface RoutePredicate {
    boolean test(PredicateContext context);
}
