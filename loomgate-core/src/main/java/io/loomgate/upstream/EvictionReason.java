package io.loomgate.upstream;

/** Why a connection left its pool for good; {@link #label()} is the name metrics and logs use. */
public enum EvictionReason {
    /** Idle for the idle timeout (the sweeper). */
    IDLE_TIMEOUT("idle-timeout"),
    /** Failed the health check on acquire: the origin closed it or talked out of turn. */
    CLOSED_BY_PEER("closed-by-peer"),
    /** The borrower said it must not be reused. */
    DISCARDED("discarded"),
    /** Released while max-idle connections were already idle. */
    OVER_MAX_IDLE("over-max-idle"),
    /** The least recently used idle connection, closed to make room for a fresh dial in a full pool. */
    REPLACED("replaced"),
    /** The pool's endpoint left the configuration on a live reload: the pool drains. */
    DRAINED("drained"),
    /** The pool was closed. */
    SHUTDOWN("shutdown");

    private final String label;

    EvictionReason(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }

    @Override
    public String toString() {
        return label;
    }
}
