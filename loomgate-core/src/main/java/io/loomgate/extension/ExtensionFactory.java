package io.loomgate.extension;

import java.util.List;
import java.util.Map;

/**
 * Makes one kind of extension (a route predicate, a gateway filter) from the arguments written in configuration, as
 * Spring Cloud Gateway's factories do. Users implement it through {@code FilterFactory} or {@code PredicateFactory}.
 *
 * <p>Arguments arrive keyed by the names of {@link #argNames()}: the shorthand {@code Name=a,b} binds {@code a} to
 * the first name and {@code b} to the second (or, when {@link #gathersList()}, all of them, comma-joined, to the
 * first); the expanded form {@code {name: Name, args: {x: a}}} binds by name, a YAML list value being comma-joined.
 * Arguments not written are absent. Configuration refuses unknown argument names and surplus shorthand values before
 * {@link #create} is called, so a factory only checks the values ({@link ExtensionArgs} does the usual checks).
 *
 * @param <T> what it makes
 */
public interface ExtensionFactory<T> {

    /** The name used in configuration, e.g. {@code StripPrefix}. Matched case-sensitively. */
    String name();

    /** The argument names, in shorthand order. */
    List<String> argNames();

    /**
     * Whether the shorthand gathers every comma-separated value into the first argument (joined with commas) instead
     * of binding them one by one; Spring Cloud Gateway's {@code GATHER_LIST}.
     */
    default boolean gathersList() {
        return false;
    }

    /**
     * Makes it. Called once per route at startup; what it returns is shared by every request, so it must be
     * immutable and thread-safe.
     *
     * @param args argument values by name, in the order written
     * @throws IllegalArgumentException with a message that names the argument and says what was expected
     */
    T create(Map<String, String> args);

    /**
     * Makes it for the route {@code routeId}: what the gateway calls. The default ignores the route and calls
     * {@link #create(Map)}, so a factory written before session 58 (which implements only that) compiles and runs
     * unchanged. Override it when what is made depends on which route it serves, e.g. state kept per route.
     *
     * @param routeId the id of the route being built; null for an extension every route shares (one built once
     *                from {@code default-filters} or the global {@code cors} section)
     * @param args    argument values by name, in the order written
     * @throws IllegalArgumentException as {@link #create(Map)}
     */
    default T create(String routeId, Map<String, String> args) {
        return create(args);
    }
}
