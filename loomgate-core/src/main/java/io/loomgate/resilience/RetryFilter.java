package io.loomgate.resilience;

import io.loomgate.filter.FilterChain;
import io.loomgate.filter.FilterExchange;
import io.loomgate.filter.GatewayFilter;
import java.io.IOException;

/**
 * The {@code Retry} filter of a route. Retrying is another upstream attempt, which only the proxy's forwarding link
 * can make (it owns the attempts and the replayable body), so as a link of the chain this filter only passes the
 * exchange on; the proxy finds it among the route's filters when it binds the route and runs its policy, with one
 * budget per route.
 */
public final class RetryFilter implements GatewayFilter {
    private final RetryPolicy policy;
    private final RetryBudget budget;

    public RetryFilter(RetryPolicy policy) {
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
    public void filter(FilterExchange exchange, FilterChain chain) throws IOException {
        chain.proceed(exchange);
    }

    @Override
    public String toString() {
        return "Retry" + policy;
    }
}
