package io.loomgate.resilience;

/**
 * The circuit breaker a {@link CircuitBreakerPolicy} asks: the one seam between Loomgate and the library that counts
 * (Resilience4j, in the module loomgate-resilience4j, found through {@link CircuitBreakerSupport}). Implementations
 * are thread-safe and never block or pin a virtual thread.
 */
interface Breaker {

    /** The name routes share it by, as written in {@code CircuitBreaker}'s {@code name}. */
    String name();

    /** Takes a permit for one call; false when the breaker is open (or half-open with its trial calls taken). */
    boolean tryAcquirePermission();

    /**
     * Whether it refuses new calls now (open, or forced open), asked without taking a permit: for a call under way
     * whose next upstream try would start after other calls' failures opened it.
     */
    boolean refusesCalls();

    /** Gives back a permit whose call neither succeeded nor failed (a filter answered before the upstream). */
    void releasePermission();

    void onSuccess(long nanos);

    void onError(long nanos, Throwable cause);

    /** The failure a call refused while open stands for, as SCG hands it to the fallback (CallNotPermittedException). */
    Throwable openFailure();

    /** The state for messages and {@code toString}: CLOSED, OPEN, HALF_OPEN... */
    String state();
}
