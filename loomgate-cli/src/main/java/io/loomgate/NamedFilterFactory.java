package io.loomgate;

import io.loomgate.filter.FilterFactory;
import io.loomgate.filter.GatewayFilter;
import java.util.List;
import java.util.Map;

/** A factory registered under the name the embedding application chose; everything else is the factory's own. */
record NamedFilterFactory(String name, FilterFactory factory) implements FilterFactory {
    @Override
    public List<String> argNames() {
        return factory.argNames();
    }

    @Override
    public boolean gathersList() {
        return factory.gathersList();
    }

    @Override
    public GatewayFilter create(Map<String, String> args) {
        return factory.create(args);
    }
}
