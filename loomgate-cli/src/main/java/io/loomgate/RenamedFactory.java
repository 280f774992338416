package io.loomgate;

import io.loomgate.extension.ExtensionFactory;
import java.util.List;
import java.util.Map;

/**
 * A factory registered under the name the embedding application chose; everything else is the factory's own. One
 * subclass per kind of extension, so the registry of that kind accepts it.
 */
abstract class RenamedFactory<T> implements ExtensionFactory<T> {
    private final String name;
    private final ExtensionFactory<T> factory;

    RenamedFactory(String name, ExtensionFactory<T> factory) {
        this.name = name;
        this.factory = factory;
    }

    @Override
    public final String name() {
        return name;
    }

    @Override
    public final List<String> argNames() {
        return factory.argNames();
    }

    @Override
    public final boolean gathersList() {
        return factory.gathersList();
    }

    @Override
    public final T create(Map<String, String> args) {
        return factory.create(args);
    }
}
