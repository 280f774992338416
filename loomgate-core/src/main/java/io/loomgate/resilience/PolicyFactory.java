package io.loomgate.resilience;

import io.loomgate.extension.ExtensionArgs;
import io.loomgate.extension.ExtensionFactory;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Makes a route policy from the arguments written under a route's {@code filters:} ({@code Retry},
 * {@code CircuitBreaker}): bound like a filter's, read with {@link ExtensionArgs}.
 */
public record PolicyFactory(String name, List<String> argNames, Function<ExtensionArgs, RoutePolicy> maker)
        implements ExtensionFactory<RoutePolicy> {

    @Override
    public RoutePolicy create(Map<String, String> args) {
        return maker.apply(new ExtensionArgs(args));
    }
}
