package io.loomgate.resilience;

/** One policy as its factory makes it from what a user wrote under {@code filters:}; see {@link RoutePolicies}. */
public sealed interface RoutePolicy {

    record Retry(RouteRetry retry) implements RoutePolicy {
    }

    record Breaker(CircuitBreakerPolicy breaker) implements RoutePolicy {
    }
}
