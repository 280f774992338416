package io.loomgate.resilience;

/**
 * A route's {@code Retry}, bound to the route when it is built: the policy and the route's one retry budget. Retrying
 * is another upstream attempt, which only the proxy's forwarding link can make (it owns the attempts and the
 * replayable body), so the proxy reads this from the route; it is not a link of the filter chain.
 */
public final class RouteRetry {
    private final RetryPolicy policy;
    private final RetryBudget budget;

    public RouteRetry(RetryPolicy policy) {
        this.policy = policy;
        this.budget = new RetryBudget(policy.budgetPercent(), policy.minRetriesPerSecond());
    }

    public RetryPolicy policy() {
        return policy;
    }

    public RetryBudget budget() {
        return budget;
    }

    @Override
    public String toString() {
        return "Retry" + policy;
    }
}
