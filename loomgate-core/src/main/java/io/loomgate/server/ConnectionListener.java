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

    /** A connection refused or closed at once because max-connections was reached. */
    default void connectionRejected(InetSocketAddress remote) {
    }
}
