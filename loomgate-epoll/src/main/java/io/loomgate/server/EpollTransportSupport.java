package io.loomgate.server;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;

/**
 * The epoll transport, as loomgate-core's {@link EpollSupport} finds it with {@link java.util.ServiceLoader}.
 * Public only because the service loader instantiates it (and bench/floor-epoll's relays run on it).
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

    @Override
    public Socket connect(InetSocketAddress address, int timeoutMillis) throws IOException {
        return EpollSocket.connect(EpollPoller.shared(), address, timeoutMillis);
    }

    @Override
    public void whenReadable(Socket socket, Runnable then) {
        epollSocket(socket).whenReadable(then);
    }

    @Override
    public int writeNow(Socket socket, byte[] bytes) throws IOException {
        return epollSocket(socket).writeNow(bytes);
    }

    private static EpollSocket epollSocket(Socket socket) {
        if (socket instanceof EpollSocket s) {
            return s;
        }
        throw new IllegalArgumentException("not a socket of the epoll transport: " + socket);
    }
}
