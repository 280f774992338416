package io.loomgate.server;

import java.net.InetSocketAddress;

/**
 * Events of client connections. Implementations must be fast, must not block and must not throw: they run on the
 * connection's own thread (or the accept loop).
 */
public interface ConnectionListener {
    ConnectionListener NOOP = new ConnectionListener() {
    };

    default void connectionOpened(InetSocketAddress remote) {
    }

    default void connectionClosed(InetSocketAddress remote, int requests) {
    }

    /** An idle keep-alive connection gave its thread up to wait in the listener's selector. On the poller's thread. */
    default void connectionParked() {
    }

    /**
     * A parked connection left the selector: it runs on a thread again, or it ends ({@link #connectionClosed}
     * follows). On the poller's thread.
     */
    default void connectionUnparked() {
    }

    /**
     * A connection accepted but closed at once, unserved, because the listener was stopping as it arrived. (At
     * max-connections nothing is refused: the listener stops accepting and clients wait in the kernel's backlog.)
     */
    default void connectionRejected(InetSocketAddress remote) {
    }
}
