package io.loomgate.server;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;

/**
 * The epoll transport, as loomgate-core's {@link EpollSupport} finds it with {@link java.util.ServiceLoader}.
 * Public only because the service loader instantiates it.
 */
public final class EpollTransportSupport implements EpollSupport {
    @Override
    public String unavailable() {
        return Libc.UNAVAILABLE;
    }

    @Override
    public ServerSocket listen(InetSocketAddress address, int backlog) throws IOException {
        return EpollServerSocket.listen(EpollPoller.shared(), address, backlog);
    }
}
