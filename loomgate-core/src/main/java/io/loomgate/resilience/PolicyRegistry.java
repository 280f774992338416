package io.loomgate.resilience;

import io.loomgate.extension.ExtensionRegistry;
import java.util.List;

/**
 * The route policies configuration can name among a route's {@code filters:}. Made fresh for each configuration
 * built, so the breakers its routes name are shared within it.
 */
public final class PolicyRegistry extends ExtensionRegistry<PolicyFactory, PolicyRegistry> {

    private PolicyRegistry(List<PolicyFactory> builtIns) {
        super("filter", builtIns);
    }

    /** {@code Retry} and {@code CircuitBreaker}, with breakers of their own. */
    public static PolicyRegistry withBuiltIns() {
        return new PolicyRegistry(List.of(RetryFactory.FACTORY, new CircuitBreakerFactory(new Resilience4jBreakers())
                .factory()));
    }
}
