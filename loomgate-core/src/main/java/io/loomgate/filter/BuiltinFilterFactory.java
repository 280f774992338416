package io.loomgate.filter;

import io.loomgate.extension.ExtensionArgs;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * A factory for a built-in filter (of this package or a package above it): its name, argument names and a constructor
 * over arguments read with the one value grammar, {@link ExtensionArgs}.
 */
public record BuiltinFilterFactory(String name, List<String> argNames, Function<ExtensionArgs, GatewayFilter> maker)
        implements FilterFactory {

    @Override
    public GatewayFilter create(Map<String, String> args) {
        return maker.apply(new ExtensionArgs(args));
    }
}
