package io.loomgate.resilience;

/**
 * A route's {@code Retry}, bound to the route when it is built: the policy and the route's one retry budget. Retrying
 * is another upstream attempt, which only the proxy's forwarding link can make (it owns the attempts and the
 * replayable body), so the proxy reads this from the route; it is not a link of the filter chain.
 */
public record RouteRetry(RetryPolicy policy, RetryBudget budget) {

    /** The policy with a budget of its own, as the policy sizes it. */
    public RouteRetry(RetryPolicy policy) {
        this(policy, new RetryBudget(policy.budgetPercent(), policy.minRetriesPerSecond()));
    }

    @Override
    public String toString() {
        return "Retry" + policy;
    }
}
