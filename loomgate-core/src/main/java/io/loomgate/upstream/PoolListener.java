package io.loomgate.upstream;

/**
 * Events of upstream connection pools. Implementations must be fast, must not block and must not throw.
 */
public interface PoolListener {
    PoolListener NOOP = new PoolListener() {
    };

    /** A new connection was dialled. */
    default void connected(Endpoint endpoint, long connectNanos) {
    }

    /** A dial failed (refused, unreachable, timed out). */
    default void connectFailed(Endpoint endpoint, Exception cause) {
    }

    /** An idle connection was handed out again. */
    default void reused(Endpoint endpoint) {
    }

    /**
     * What a pool runs each time it hands out one of {@code endpoint}'s idle connections again, asked once when the
     * pool is made: a listener that keeps state per endpoint finds it here once, not on every reuse (metrics looked
     * their endpoint up in a map per request: about 1% of the CPU samples at W8). By default, {@link #reused}.
     */
    default Runnable reuseAction(Endpoint endpoint) {
        return () -> reused(endpoint);
    }

    /** A connection left the pool for good, for this reason. */
    default void evicted(Endpoint endpoint, EvictionReason reason) {
    }
}
