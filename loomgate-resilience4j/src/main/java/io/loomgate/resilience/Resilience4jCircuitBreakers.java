package io.loomgate.resilience;

import io.loomgate.filter.FilterFactory;

/**
 * This module's answer to loomgate-core's {@link CircuitBreakerSupport} (listed in
 * {@code META-INF/services/io.loomgate.resilience.CircuitBreakerSupport}): {@link CircuitBreakerFilterFactory} on
 * Resilience4j. Public only because {@link java.util.ServiceLoader} instantiates it.
 */
public final class Resilience4jCircuitBreakers implements CircuitBreakerSupport {
    @Override
    public FilterFactory factory() {
        return new CircuitBreakerFilterFactory();
    }
}
