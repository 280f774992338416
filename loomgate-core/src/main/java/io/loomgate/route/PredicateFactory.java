package io.loomgate.route;

import io.loomgate.extension.ExtensionFactory;

/**
 * Makes a {@link RoutePredicate} from the arguments written in configuration, as Spring Cloud Gateway's
 * {@code RoutePredicateFactory} does. Register one with {@link PredicateRegistry#register} to use it by name in a
 * route's {@code predicates:}. How arguments are bound (Path, Host and Method gather a list), and what
 * {@code create} may assume, is in {@link ExtensionFactory}; {@link io.loomgate.extension.ExtensionArgs} reads and
 * checks the values.
 */
public interface PredicateFactory extends ExtensionFactory<RoutePredicate> {
}
