package io.loomgate.upstream;

import java.io.IOException;

/** Reusable connections to one endpoint. Thread-safe. */
public final class UpstreamPool {
    UpstreamPool() {
        throw new UnsupportedOperationException("stub");
    }

    public Endpoint endpoint() {
        throw new UnsupportedOperationException("stub");
    }

    /**
     * A healthy idle connection, or a new one. Waits for a free slot until the deadline (System.nanoTime()).
     *
     * @param fresh true to skip idle connections and dial a new one (the retry after a stale reuse)
     * @throws java.net.ConnectException refused or unreachable
     * @throws java.net.SocketTimeoutException connect timed out
     * @throws PoolExhaustedException no slot freed before the deadline
     */
    public PooledConnection acquire(long deadlineNanos, boolean fresh) throws IOException {
        throw new UnsupportedOperationException("stub");
    }

    /** Gives back a connection whose last exchange ended cleanly. */
    public void release(PooledConnection connection) {
        throw new UnsupportedOperationException("stub");
    }

    /** Closes a connection that must not be reused. */
    public void discard(PooledConnection connection) {
        throw new UnsupportedOperationException("stub");
    }

    public int idleCount() {
        throw new UnsupportedOperationException("stub");
    }

    public int inUseCount() {
        throw new UnsupportedOperationException("stub");
    }
}
