package io.loomgate.resilience;

import io.github.resilience4j.circuitbreaker.CallNotPermittedException;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import java.util.concurrent.TimeUnit;

/**
 * The only class that talks to Resilience4j: a registry of its count-based breakers by name (routes naming the same
 * breaker share it, the first one's settings applying, as in SCG), each seen through {@link Breaker}.
 *
 * <p>Resilience4j's breaker is lock-free on its state (an AtomicReference) and, from 2.3.0, guards its sliding window
 * with a ReentrantLock instead of {@code synchronized}, so it neither blocks nor pins a virtual thread.
 */
final class Resilience4jBreakers implements CircuitBreakerSupport.Breakers {
    private final CircuitBreakerRegistry registry = CircuitBreakerRegistry.ofDefaults();


    @Override
    public Breaker breaker(String name, CircuitBreakerSupport.Settings s) {
        CircuitBreakerConfig config = CircuitBreakerConfig.custom()
                .slidingWindowType(CircuitBreakerConfig.SlidingWindowType.COUNT_BASED)
                .slidingWindowSize(s.slidingWindow())
                .minimumNumberOfCalls(s.minimumCalls())
                .failureRateThreshold(s.failureRateThreshold())
                .waitDurationInOpenState(s.waitInOpen())
                .permittedNumberOfCallsInHalfOpenState(s.permittedCallsInHalfOpen())
                .slowCallDurationThreshold(s.slowCallThreshold())
                .slowCallRateThreshold(s.slowCallRateThreshold())
                .recordExceptions(Throwable.class)
                .build();
        return new Adapter(registry.circuitBreaker(name, config));
    }

    private record Adapter(CircuitBreaker cb) implements Breaker {
        @Override
        public String name() {
            return cb.getName();
        }

        @Override
        public boolean tryAcquirePermission() {
            return cb.tryAcquirePermission();
        }

        @Override
        public boolean refusesCalls() {
            CircuitBreaker.State state = cb.getState(); // one volatile read; nothing moves it
            return state == CircuitBreaker.State.OPEN || state == CircuitBreaker.State.FORCED_OPEN;
        }

        @Override
        public void releasePermission() {
            cb.releasePermission();
        }

        @Override
        public void onSuccess(long nanos) {
            cb.onSuccess(nanos, TimeUnit.NANOSECONDS);
        }

        @Override
        public void onError(long nanos, Throwable cause) {
            cb.onError(nanos, TimeUnit.NANOSECONDS, cause);
        }

        @Override
        public Throwable openFailure() {
            return CallNotPermittedException.createCallNotPermittedException(cb);
        }

        @Override
        public String state() {
            return cb.getState().name();
        }
    }
}
