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
     * A connection left the pool for good. Reasons: {@code idle-timeout} (the sweeper), {@code closed-by-peer} (failed
     * the health check on acquire), {@code discarded} (the borrower said so), {@code over-max-idle} (released while
     * max-idle were already idle), {@code replaced} (the least recently used idle connection, closed to make room for
     * a fresh dial in a full pool), {@code shutdown} (the pool was closed).
     */
    default void evicted(Endpoint endpoint, String reason) {
    }
}
