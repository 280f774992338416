package io.loomgate.route;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The predicate factories configuration can name: the built-ins (Path, Host, Method, Header, Query, Weight) plus any
 * a user registers. Names are case-sensitive, as in Spring Cloud Gateway. Filled once at startup, before the gateway
 * is assembled; not for concurrent change.
 */
public final class PredicateRegistry {
    private static final List<PredicateFactory> BUILT_INS = List.of(PathPredicate.FACTORY, HostPredicate.FACTORY,
            MethodPredicate.FACTORY, HeaderPredicate.FACTORY, QueryPredicate.FACTORY, WeightPredicate.FACTORY,
            RemoteAddrPredicate.FACTORY);

    private final Map<String, PredicateFactory> factories = new LinkedHashMap<>();

    private PredicateRegistry() {
    }

    /** A registry of the built-in predicates, to which more can be added. */
    public static PredicateRegistry withBuiltIns() {
        PredicateRegistry registry = new PredicateRegistry();
        BUILT_INS.forEach(registry::register);
        return registry;
    }

    /**
     * Adds a factory.
     *
     * @return this registry
     * @throws IllegalArgumentException when a factory of that name is already registered
     */
    public PredicateRegistry register(PredicateFactory factory) {
        String name = factory.name();
        if (name == null || name.isEmpty()) {
            throw new IllegalArgumentException("a predicate factory needs a name: " + factory);
        }
        if (factories.putIfAbsent(name, factory) != null) {
            throw new IllegalArgumentException("a predicate named '" + name + "' is already registered");
        }
        return this;
    }

    /** The factory of that exact name, or null. */
    public PredicateFactory find(String name) {
        return factories.get(name);
    }

    /** Every registered name, built-ins first, in registration order. */
    public Set<String> names() {
        return Collections.unmodifiableSet(factories.keySet());
    }
}
