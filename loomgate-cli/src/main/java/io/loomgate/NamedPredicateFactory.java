package io.loomgate;

import io.loomgate.route.PredicateFactory;
import io.loomgate.route.RoutePredicate;
import java.util.List;
import java.util.Map;

/** A factory registered under the name the embedding application chose; everything else is the factory's own. */
record NamedPredicateFactory(String name, PredicateFactory factory) implements PredicateFactory {
    @Override
    public List<String> argNames() {
        return factory.argNames();
    }

    @Override
    public boolean gathersList() {
        return factory.gathersList();
    }

    @Override
    public RoutePredicate create(Map<String, String> args) {
        return factory.create(args);
    }
}
