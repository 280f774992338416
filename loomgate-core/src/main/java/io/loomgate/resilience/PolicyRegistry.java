package io.loomgate.resilience;

import io.loomgate.extension.ExtensionRegistry;
import java.util.ArrayList;
import java.util.List;

/**
 * The route policies configuration can name among a route's {@code filters:}. Made fresh for each configuration
 * built, so the breakers its routes name are shared within it; a gateway that reloads passes the breakers it keeps
 * ({@link KeptPolicies}), so an unchanged breaker keeps its state across the reload.
 */
public final class PolicyRegistry extends ExtensionRegistry<PolicyFactory, PolicyRegistry> {

    private PolicyRegistry(List<PolicyFactory> builtIns) {
        super("filter", builtIns);
    }

    /**
     * {@code Retry}, and {@code CircuitBreaker} with breakers of their own when its module, loomgate-resilience4j, is
     * on the class path ({@link CircuitBreakerSupport}); without it a route naming it is refused with the module's name.
     */
    public static PolicyRegistry withBuiltIns() {
        return withBuiltIns(new KeptPolicies());
    }

    /**
     * As {@link #withBuiltIns()}, the breakers and retry budgets taken from {@code kept} when their settings are kept
     * there.
     */
    public static PolicyRegistry withBuiltIns(KeptPolicies kept) {
        List<PolicyFactory> all = new ArrayList<>(List.of(RetryFactory.factory(kept)));
        CircuitBreakerSupport.find().ifPresent(cb -> all.add(new CircuitBreakerFactory(cb, kept).factory()));
        return new PolicyRegistry(List.copyOf(all));
    }
}
