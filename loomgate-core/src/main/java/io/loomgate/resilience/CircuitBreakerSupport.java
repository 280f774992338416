package io.loomgate.resilience;

import io.loomgate.filter.FilterFactory;
import java.util.Optional;
import java.util.ServiceLoader;

/**
 * The {@code CircuitBreaker} filter, which lives in the optional module {@value #MODULE} with Resilience4j, so an
 * embedding of loomgate-core carries neither. The module supplies the one implementation, found with
 * {@link ServiceLoader} on Loomgate's class loader; without it, {@link ResilienceFilters} has no
 * {@code CircuitBreaker} and a route naming it is refused with this module's name.
 */
interface CircuitBreakerSupport {
    /** The Maven module (artifact id) that implements this. */
    String MODULE = "loomgate-resilience4j";

    /** A new factory: its breakers are shared by the routes built with it (one configuration). */
    FilterFactory factory();

    /** The implementation, or empty when {@value #MODULE} is not on the class path. */
    static Optional<CircuitBreakerSupport> find() {
        return Found.SUPPORT;
    }

    /** Looked up once, on first use. */
    final class Found {
        private Found() {
        }

        static final Optional<CircuitBreakerSupport> SUPPORT = ServiceLoader.load(CircuitBreakerSupport.class,
                CircuitBreakerSupport.class.getClassLoader()).findFirst();
    }
}
