package io.loomgate.filter;

import java.util.List;
import java.util.Map;

/**
 * Makes a {@link GatewayFilter} from the arguments written in configuration, as Spring Cloud Gateway's
 * {@code GatewayFilterFactory} does. Register one with {@link FilterRegistry#register} to use it by name in a route's
 * {@code filters:}.
 *
 * <p>Arguments arrive keyed by the names of {@link #argNames()}: the shorthand {@code Name=a,b} binds {@code a} to
 * the first name and {@code b} to the second; the expanded form {@code {name: Name, args: {x: a}}} binds by name.
 * Arguments not written are absent from the map. Configuration refuses unknown argument names and surplus shorthand
 * values before {@link #create} is called, so a factory only checks the values.
 */
public interface FilterFactory {

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
     * Makes the filter. Called once per route at startup; the filter it returns is shared by every request.
     *
     * @param args argument values by name, in the order written
     * @throws IllegalArgumentException with a message that names the argument and says what was expected
     */
    GatewayFilter create(Map<String, String> args);
}
