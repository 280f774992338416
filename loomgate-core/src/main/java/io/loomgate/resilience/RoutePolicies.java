package io.loomgate.resilience;

/**
 * What a route does about a failing upstream, bound when the route is built from the {@code Retry} and
 * {@code CircuitBreaker} a user writes among its {@code filters:} (Spring Cloud Gateway's spelling): the proxy runs
 * them around the filter chain and the upstream attempts, not as links of the chain.
 *
 * @param retry   the route's retry, or null for none
 * @param breaker the route's circuit breaker, or null for none
 */
public record RoutePolicies(RouteRetry retry, CircuitBreakerPolicy breaker) {
    /** Neither. */
    public static final RoutePolicies NONE = new RoutePolicies(null, null);

    /** These with {@code policy} added, refusing a second of its kind (one retry, one breaker per route). */
    public RoutePolicies with(RoutePolicy policy) {
        return switch (policy) {
            case RoutePolicy.Retry r -> {
                if (retry != null) {
                    throw new IllegalArgumentException("has more than one Retry filter; a route retries by one policy");
                }
                yield new RoutePolicies(r.retry(), breaker);
            }
            case RoutePolicy.Breaker b -> {
                if (breaker != null) {
                    throw new IllegalArgumentException("has more than one CircuitBreaker filter; a route has one "
                            + "breaker");
                }
                yield new RoutePolicies(retry, b.breaker());
            }
        };
    }
}
