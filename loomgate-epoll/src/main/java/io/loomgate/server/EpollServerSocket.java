package io.loomgate.server;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketAddress;
import java.net.SocketException;

/**
 * A listening socket on the epoll transport, seen by the {@link Listener}'s accept loop as a {@link ServerSocket}:
 * {@link #accept()} parks the calling (virtual) thread until the poller reports a pending connection, and returns an
 * {@link EpollSocket} (non-blocking, close-on-exec, TCP_NODELAY, registered once with the poller).
 *
 * <p>File-descriptor exhaustion: {@code accept4} failing with EMFILE, ENFILE, ENOBUFS or ENOMEM throws a
 * {@link SocketException} naming it (the listener pauses and logs, {@link AcceptBackoff}) and leaves the socket
 * marked readable: the connection is still pending and no new edge will come for it, so the next accept tries again
 * instead of parking for ever. {@link #close()} from another thread ends a parked accept with a SocketException.
 */
final class EpollServerSocket extends ServerSocket {
    private final EpollFd fd;
    private final InetSocketAddress local;
    private final MemorySegment errno = Libc.errnoSegment();
    private final byte[] peer = new byte[Libc.SOCKADDR_SIZE];
    private final int[] peerLength = new int[1];

    private EpollServerSocket(EpollFd fd, InetSocketAddress local) throws IOException {
        super(new InertSocketImpl());
        this.fd = fd;
        this.local = local;
    }

    /** Bound to {@code address} (port 0: any free one), listening with {@code backlog}, registered with the poller. */
    static EpollServerSocket listen(EpollPoller poller, InetSocketAddress address, int backlog) throws IOException {
        InetSocketAddress[] bound = new InetSocketAddress[1];
        EpollFd fd = EpollFd.open(poller, EpollFd.socket(address), false, (s, errno) -> {
            Libc.check(Libc.setIntOption(errno, s, Libc.SOL_SOCKET, Libc.SO_REUSEADDR, 1), "setsockopt", errno);
            Libc.check(Libc.bind(errno, s, Libc.sockaddr(address)), "bind", errno);
            Libc.check(Libc.listen(errno, s, backlog), "listen", errno);
            bound[0] = EpollFd.localAddressOf(s);
            if (bound[0] == null) {
                throw new SocketException("getsockname: no IPv4 or IPv6 address");
            }
        });
        return new EpollServerSocket(fd, bound[0]);
    }

    /** The next connection, parking while none is pending. One accepting thread at a time. */
    @Override
    public Socket accept() throws IOException {
        while (true) {
            if (!fd.mayRead()) {
                fd.awaitReadable(0);
            }
            int client;
            int e = 0;
            fd.acquire();
            try {
                fd.readable = false;
                peerLength[0] = Libc.SOCKADDR_SIZE;
                client = Libc.accept(errno, fd.fd, MemorySegment.ofArray(peer), MemorySegment.ofArray(peerLength));
                if (client < 0) {
                    e = Libc.errno(errno);
                }
            } finally {
                fd.release();
            }
            if (client >= 0) {
                fd.readable = true; // more may be pending: the next accept tries before it parks
                return connection(client);
            }
            if (e == Libc.EAGAIN || e == Libc.EINTR || e == Libc.ECONNABORTED) {
                if (e != Libc.EAGAIN) {
                    fd.readable = true;
                }
                continue;
            }
            fd.readable = true; // EMFILE and the like: the connection still waits; no new edge will say so
            throw new SocketException("accept: " + Libc.describe(e));
        }
    }

    private Socket connection(int client) throws IOException {
        InetSocketAddress remote = Libc.address(peer);
        EpollFd registered = EpollFd.open(fd.poller(), client, true, (s, errno) -> Libc.check(
                Libc.setIntOption(errno, s, Libc.IPPROTO_TCP, Libc.TCP_NODELAY, 1), "setsockopt TCP_NODELAY", errno));
        return new EpollSocket(registered, remote == null ? new InetSocketAddress(0) : remote);
    }

    @Override
    public void close() {
        fd.close();
    }

    @Override
    public boolean isClosed() {
        return fd.isClosed();
    }

    @Override
    public boolean isBound() {
        return true;
    }

    @Override
    public InetAddress getInetAddress() {
        return local.getAddress();
    }

    @Override
    public int getLocalPort() {
        return local.getPort();
    }

    @Override
    public SocketAddress getLocalSocketAddress() {
        return local;
    }

    @Override
    public void setReuseAddress(boolean on) {
        // set at bind, always on
    }

    @Override
    public String toString() {
        return "EpollServerSocket[fd=" + fd.fd + (isClosed() ? ", closed" : "") + ", local=" + local + "]";
    }
}
