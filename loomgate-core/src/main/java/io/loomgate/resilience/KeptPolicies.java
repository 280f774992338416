package io.loomgate.resilience;

import io.loomgate.reload.KeptAcrossReloads;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * The route policies' state one gateway keeps across live reloads, as it keeps its upstream pools, JWKS key sources
 * and local rate-limit buckets: the circuit breakers and the retry budgets. A reload builds every route anew; a
 * {@code CircuitBreaker} whose name and settings are unchanged gets the breaker already serving, with its state (open,
 * its sliding window), and a {@code Retry} whose settings are unchanged gets the budget already counting. Until
 * session 57 every reload made both anew, so any applied reload, even one that changed another route, closed an open
 * breaker and sent the traffic it was holding back to the failing upstream at once, and gave every route its whole
 * retry budget again. A breaker or budget whose settings changed starts over (its state was counted under the old
 * ones). Retry budgets are per route and known by the route's id and their settings (since session 58; before, by their
 * place among equal settings, so removing the first of two routes with equal {@code Retry} settings handed the
 * second its budget); a renamed route's budget starts over.
 *
 * <p>Lifecycle: one per gateway, handed to every build of its routes
 * ({@link PolicyRegistry#withBuiltIns(KeptPolicies)}); after a swap, and before the next build, {@link #retain}
 * forgets what no served route uses (so what an assembly built and never served made goes too). Neither holds a
 * thread, so forgetting one is all its end needs.
 */
public final class KeptPolicies {
    /** A breaker's name and settings: equal keys, one breaker. */
    private record BreakerKey(String name, CircuitBreakerSupport.Settings settings) {
    }

    /** A route's retry budget: its route and settings. */
    private record BudgetKey(String route, RetryPolicy policy) {
    }

    private final KeptAcrossReloads<BreakerKey, Breaker> breakers = new KeptAcrossReloads<>();
    private final KeptAcrossReloads<BudgetKey, RetryBudget> budgets = new KeptAcrossReloads<>();

    /** The breaker kept under this name and these settings, or the one {@code make} makes now, kept from now on. */
    Breaker keep(String name, CircuitBreakerSupport.Settings settings, Supplier<Breaker> make) {
        return breakers.keep(new BreakerKey(name, settings), make);
    }

    /**
     * The retry budget kept for the {@code Retry} of this route with these settings, or a new one as the policy sizes
     * it; {@code route} null (a policy made outside a route table) is a key like any other.
     */
    RetryBudget budget(String route, RetryPolicy policy) {
        return budgets.keep(new BudgetKey(route, policy), () -> new RetryBudget(policy.budgetPercent(), policy.minRetriesPerSecond()));
    }

    /** Forgets every breaker and budget none of these policies (those of the routes served now) uses. */
    public void retain(Iterable<RoutePolicies> served) {
        List<Breaker> usedBreakers = new ArrayList<>();
        List<RetryBudget> usedBudgets = new ArrayList<>();
        for (RoutePolicies p : served) {
            if (p.breaker() != null) {
                usedBreakers.add(p.breaker().breaker());
            }
            if (p.retry() != null) {
                usedBudgets.add(p.retry().budget());
            }
        }
        breakers.retain(usedBreakers);
        budgets.retain(usedBudgets);
    }

    /** How many breakers are kept now. */
    public int size() {
        return breakers.size();
    }

    /** How many retry budgets are kept now. */
    public int budgets() {
        return budgets.size();
    }
}
