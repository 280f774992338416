package io.loomgate.server;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.SocketAddress;
import java.net.SocketException;
import java.net.SocketImpl;

/**
 * The {@link SocketImpl} under {@link EpollSocket} and {@link EpollServerSocket}, which override everything the
 * gateway and JSSE ask of a socket: anything else reaches this and is refused with a message naming the transport
 * (instead of the {@link NullPointerException} a null implementation would give). It holds no file descriptor.
 */
final class InertSocketImpl extends SocketImpl {
    private static SocketException refused() {
        return new SocketException("not supported by the epoll transport (server.transport: epoll)");
    }

    @Override
    protected void create(boolean stream) throws SocketException {
        throw refused();
    }

    @Override
    protected void connect(String host, int port) throws SocketException {
        throw refused();
    }

    @Override
    protected void connect(InetAddress address, int port) throws SocketException {
        throw refused();
    }

    @Override
    protected void connect(SocketAddress address, int timeout) throws SocketException {
        throw refused();
    }

    @Override
    protected void bind(InetAddress host, int port) throws SocketException {
        throw refused();
    }

    @Override
    protected void listen(int backlog) throws SocketException {
        throw refused();
    }

    @Override
    protected void accept(SocketImpl s) throws SocketException {
        throw refused();
    }

    @Override
    protected InputStream getInputStream() throws SocketException {
        throw refused();
    }

    @Override
    protected OutputStream getOutputStream() throws SocketException {
        throw refused();
    }

    @Override
    protected int available() throws SocketException {
        throw refused();
    }

    @Override
    protected void close() {
        // nothing open
    }

    @Override
    protected void sendUrgentData(int data) throws SocketException {
        throw refused();
    }

    @Override
    public void setOption(int optID, Object value) throws SocketException {
        throw refused();
    }

    @Override
    public Object getOption(int optID) throws SocketException {
        throw refused();
    }
}
