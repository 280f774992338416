package io.loomgate.filter;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The filter factories configuration can name: the built-ins plus any a user registers. Names are case-sensitive,
 * as in Spring Cloud Gateway. Filled once at startup, before the gateway is assembled; not for concurrent change.
 */
public final class FilterRegistry {
    private static final List<FilterFactory> BUILT_INS = List.of(
            StripPrefixFilter.FACTORY, PrefixPathFilter.FACTORY, RewritePathFilter.FACTORY, SetPathFilter.FACTORY,
            AddRequestHeaderFilter.FACTORY, SetRequestHeaderFilter.FACTORY, RemoveRequestHeaderFilter.FACTORY,
            AddResponseHeaderFilter.FACTORY, SetResponseHeaderFilter.FACTORY, RemoveResponseHeaderFilter.FACTORY,
            SetStatusFilter.FACTORY, RedirectToFilter.FACTORY);

    private final Map<String, FilterFactory> factories = new LinkedHashMap<>();

    private FilterRegistry() {
    }

    /** A registry of the built-in filters, to which more can be added. */
    public static FilterRegistry withBuiltIns() {
        FilterRegistry registry = new FilterRegistry();
        BUILT_INS.forEach(registry::register);
        return registry;
    }

    /**
     * Adds a factory.
     *
     * @return this registry
     * @throws IllegalArgumentException when a factory of that name is already registered
     */
    public FilterRegistry register(FilterFactory factory) {
        String name = factory.name();
        if (name == null || name.isEmpty()) {
            throw new IllegalArgumentException("a filter factory needs a name: " + factory);
        }
        if (factories.putIfAbsent(name, factory) != null) {
            throw new IllegalArgumentException("a filter named '" + name + "' is already registered");
        }
        return this;
    }

    /** The factory of that exact name, or null. */
    public FilterFactory find(String name) {
        return factories.get(name);
    }

    /** Every registered name, built-ins first, in registration order. */
    public Set<String> names() {
        return Collections.unmodifiableSet(factories.keySet());
    }
}
