package io.loomgate.filter;

import io.loomgate.extension.ExtensionFactory;

/**
 * Makes a {@link GatewayFilter} from the arguments written in configuration, as Spring Cloud Gateway's
 * {@code GatewayFilterFactory} does. Register one with {@link FilterRegistry#register} to use it by name in a route's
 * {@code filters:}. How arguments are bound, and what {@code create} may assume, is in {@link ExtensionFactory};
 * {@link io.loomgate.extension.ExtensionArgs} reads and checks the values.
 */
public interface FilterFactory extends ExtensionFactory<GatewayFilter> {
}
