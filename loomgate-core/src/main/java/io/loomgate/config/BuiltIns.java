package io.loomgate.config;

import io.loomgate.filter.FilterRegistry;
import io.loomgate.resilience.FallbackHeadersFilter;
import io.loomgate.resilience.KeptPolicies;
import io.loomgate.resilience.PolicyRegistry;
import io.loomgate.route.PredicateRegistry;
import io.loomgate.security.JwksKeySets;
import io.loomgate.security.SecurityFilters;

/**
 * Where every built-in predicate, filter and route policy is registered, whichever package it lives in: the filter
 * package's own, the security filters, {@code FallbackHeaders}, and the route policies {@code Retry} and
 * {@code CircuitBreaker} (written among a route's filters, bound to the route). A new built-in of a package above
 * {@code filter} is one line here. {@code RequestRateLimiter} is the one exception: its factory belongs to whoever
 * owns the Redis pool ({@code RateLimiting}).
 */
public final class BuiltIns {
    private BuiltIns() {
    }

    /** Every built-in predicate. */
    public static PredicateRegistry predicates() {
        return PredicateRegistry.withBuiltIns();
    }

    /** Every built-in filter, {@code JwtAuth} taking JWKS keys from {@code keySets}. */
    public static FilterRegistry filters(JwksKeySets keySets) {
        FilterRegistry registry = FilterRegistry.withBuiltIns();
        SecurityFilters.all(keySets).forEach(registry::register);
        registry.register(FallbackHeadersFilter.FACTORY);
        return registry;
    }

    /** The route policies, with breakers of their own: one call per configuration built, so its routes share them. */
    public static PolicyRegistry policies() {
        return PolicyRegistry.withBuiltIns();
    }

    /** As {@link #policies()}, with the breakers a reloading gateway keeps ({@link KeptPolicies}). */
    public static PolicyRegistry policies(KeptPolicies breakers) {
        return PolicyRegistry.withBuiltIns(breakers);
    }
}
