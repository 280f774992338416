package io.loomgate.resilience;

import java.time.Duration;
import java.util.Optional;
import java.util.ServiceLoader;

/**
 * The breakers behind the {@code CircuitBreaker} policy, which live in the optional module {@value #MODULE} with
 * Resilience4j, so an embedding of loomgate-core carries neither. The module supplies the one implementation, found
 * with {@link ServiceLoader} on Loomgate's class loader; without it, {@link PolicyRegistry} has no
 * {@code CircuitBreaker} and a route naming it is refused with this module's name.
 */
interface CircuitBreakerSupport {
    /** The Maven module (artifact id) that implements this. */
    String MODULE = "loomgate-resilience4j";

    /** A new set of breakers by name: the routes of one configuration share it. */
    Breakers newBreakers();

    /** Breakers by name: routes naming the same breaker share it, the first one's settings applying, as in SCG. */
    interface Breakers {
        /** The breaker of that name: made with these settings the first time, shared after. */
        Breaker breaker(String name, Settings settings);
    }

    /** The settings of one count-based breaker, with Resilience4j's meanings. */
    record Settings(int slidingWindow, int minimumCalls, int failureRateThreshold, Duration waitInOpen,
                    int permittedCallsInHalfOpen, Duration slowCallThreshold, int slowCallRateThreshold) {
    }

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
