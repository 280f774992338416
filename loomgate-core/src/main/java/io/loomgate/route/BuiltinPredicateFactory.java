package io.loomgate.route;

import io.loomgate.extension.ExtensionArgs;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/** A factory for a built-in predicate: its name, argument names and a constructor over checked arguments. */
record BuiltinPredicateFactory(String name, List<String> argNames, boolean gathersList,
                               Function<ExtensionArgs, RoutePredicate> maker) implements PredicateFactory {

    @Override
    public RoutePredicate create(Map<String, String> args) {
        return maker.apply(new ExtensionArgs(args));
    }
}
