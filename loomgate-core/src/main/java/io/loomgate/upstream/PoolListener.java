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

    /** A connection left the pool for good, for this reason. */
    default void evicted(Endpoint endpoint, EvictionReason reason) {
    }
}
