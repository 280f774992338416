package io.loomgate.route;

import io.loomgate.extension.ExtensionRegistry;
import java.util.List;

/**
 * The predicate factories configuration can name: the built-ins (Path, Host, Method, Header, Query, Weight, RemoteAddr,
 * XForwardedRemoteAddr, Cookie, After, Before, Between) plus any
 * a user registers ({@code PredicateRegistry.withBuiltIns().register(myFactory)}, then pass it to
 * {@code GatewayAssembly.build}). A new built-in is one line in {@link #BUILT_INS}.
 */
public final class PredicateRegistry extends ExtensionRegistry<PredicateFactory, PredicateRegistry> {
    private static final List<PredicateFactory> BUILT_INS = List.of(
            PathPredicate.FACTORY,
            HostPredicate.FACTORY,
            MethodPredicate.FACTORY,
            HeaderPredicate.FACTORY,
            QueryPredicate.FACTORY,
            WeightPredicate.FACTORY,
            RemoteAddrPredicate.FACTORY,
            XForwardedRemoteAddrPredicate.FACTORY,
            CookiePredicate.FACTORY,
            TimeWindowPredicate.AFTER,
            TimeWindowPredicate.BEFORE,
            TimeWindowPredicate.BETWEEN);

    private PredicateRegistry() {
        super("predicate", BUILT_INS);
    }

    /** A registry of the built-in predicates, to which more can be added. */
    public static PredicateRegistry withBuiltIns() {
        return new PredicateRegistry();
    }
}
