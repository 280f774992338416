package io.loomgate.route;

import java.util.List;
import java.util.Map;

/**
 * Makes a {@link RoutePredicate} from the arguments written in configuration, as Spring Cloud Gateway's
 * {@code RoutePredicateFactory} does. Register one with {@link PredicateRegistry#register} to use it by name in a
 * route's {@code predicates:}.
 *
 * <p>Arguments arrive keyed by the names of {@link #argNames()}: the shorthand {@code Name=a,b} binds {@code a} to
 * the first name and {@code b} to the second (or, when {@link #gathersList()}, all of them, comma-joined, to the
 * first); the expanded form {@code {name: Name, args: {x: a}}} binds by name, a YAML list value being comma-joined.
 * Arguments not written are absent. Configuration refuses unknown argument names and surplus shorthand values before
 * {@link #create} is called, so a factory only checks the values.
 */
public interface PredicateFactory {

    /** The name used in configuration, e.g. {@code Path}. Matched case-sensitively. */
    String name();

    /** The argument names, in shorthand order. */
    List<String> argNames();

    /**
     * Whether the shorthand gathers every comma-separated value into the first argument (joined with commas);
     * Spring Cloud Gateway's {@code GATHER_LIST}, used by Path, Host and Method.
     */
    default boolean gathersList() {
        return false;
    }

    /**
     * Makes the predicate. Called once per route at startup; the predicate is shared by every request, so it must
     * be immutable and thread-safe.
     *
     * @param args argument values by name, in the order written
     * @throws IllegalArgumentException with a message that names the argument and says what was expected
     */
    RoutePredicate create(Map<String, String> args);
}
