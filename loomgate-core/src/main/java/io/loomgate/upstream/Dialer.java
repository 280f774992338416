package io.loomgate.upstream;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;

/**
 * Opens the TCP connections to origins on a transport other than the JDK's sockets ({@code server.transport: epoll};
 * the composition root makes it, since the transports live in the server package). A pool without one dials the
 * JDK's sockets ({@link Connector}). Also the seam tests use to simulate a connect that never completes.
 */
@FunctionalInterface
public interface Dialer {
    /**
     * A socket connected to {@code address} within {@code timeoutMillis} (at least 1), with TCP_NODELAY and
     * SO_KEEPALIVE on.
     *
     * @throws java.net.SocketTimeoutException when the connect timed out
     * @throws IOException                     when it failed (refused, unreachable)
     */
    Socket dial(InetSocketAddress address, int timeoutMillis) throws IOException;
}
