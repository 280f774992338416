package io.loomgate.extension;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The factories of one kind that configuration can name: the built-ins plus any a user registers. Names are
 * case-sensitive, as in Spring Cloud Gateway. Filled once at startup, before the gateway is assembled; not for
 * concurrent change.
 *
 * <p>Each kind has its own final subclass ({@code FilterRegistry}, {@code PredicateRegistry}) that names the kind and
 * lists its built-ins; the second type parameter is that subclass, so {@link #register} chains with its type.
 *
 * @param <F> the factory type of this kind
 * @param <R> the subclass itself
 */
public abstract class ExtensionRegistry<F extends ExtensionFactory<?>, R extends ExtensionRegistry<F, R>> {
    private final String kind;
    private final Map<String, F> factories = new LinkedHashMap<>();

    /**
     * @param kind     what the factories make, for messages: {@code filter}, {@code predicate}
     * @param builtIns registered first, in this order
     */
    protected ExtensionRegistry(String kind, List<? extends F> builtIns) {
        this.kind = kind;
        builtIns.forEach(this::register);
    }

    /**
     * Adds a factory.
     *
     * @return this registry
     * @throws IllegalArgumentException when it has no name or a factory of that name is already registered
     */
    @SuppressWarnings("unchecked") // R is this object's own class, by the subclass's declaration
    public final R register(F factory) {
        String name = factory.name();
        if (name == null || name.isEmpty()) {
            throw new IllegalArgumentException("a " + kind + " factory needs a name: " + factory);
        }
        if (factories.putIfAbsent(name, factory) != null) {
            throw new IllegalArgumentException("a " + kind + " named '" + name + "' is already registered");
        }
        return (R) this;
    }

    /** The factory of that exact name, or null. */
    public final F find(String name) {
        return factories.get(name);
    }

    /** Every registered name, built-ins first, in registration order. */
    public final Set<String> names() {
        return Collections.unmodifiableSet(factories.keySet());
    }

    /** What the factories make, as messages name it: {@code filter}, {@code predicate}. */
    public final String kind() {
        return kind;
    }
}
