package io.loomgate.security;

import io.loomgate.filter.FilterFactory;
import io.loomgate.filter.GatewayFilter;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/** A factory for one of the security filters: its name, argument names and a constructor over checked arguments. */
record SecurityFilterFactory(String name, List<String> argNames, Function<SecurityArgs, GatewayFilter> maker)
        implements FilterFactory {

    @Override
    public GatewayFilter create(Map<String, String> args) {
        return maker.apply(new SecurityArgs(args));
    }
}
