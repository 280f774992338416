package io.loomgate.resilience;

import io.loomgate.extension.ExtensionArgs;
import io.loomgate.extension.ExtensionFactory;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;

/**
 * Makes a route policy from the arguments written under a route's {@code filters:} ({@code Retry},
 * {@code CircuitBreaker}): bound like a filter's, read with {@link ExtensionArgs}; the maker is told the route's id
 * (a retry budget is kept per route across reloads).
 */
public record PolicyFactory(String name, List<String> argNames, BiFunction<String, ExtensionArgs, RoutePolicy> maker)
        implements ExtensionFactory<RoutePolicy> {

    @Override
    public RoutePolicy create(Map<String, String> args) {
        return create(null, args);
    }

    @Override
    public RoutePolicy create(String routeId, Map<String, String> args) {
        return maker.apply(routeId, new ExtensionArgs(args));
    }
}
