package io.loomgate.resilience;

/**
 * This module's answer to loomgate-core's {@link CircuitBreakerSupport} (listed in
 * {@code META-INF/services/io.loomgate.resilience.CircuitBreakerSupport}): breakers on Resilience4j
 * ({@link Resilience4jBreakers}). Public only because {@link java.util.ServiceLoader} instantiates it.
 */
public final class Resilience4jCircuitBreakers implements CircuitBreakerSupport {
    @Override
    public Breakers newBreakers() {
        return new Resilience4jBreakers();
    }
}
