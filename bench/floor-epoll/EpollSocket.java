import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.SocketException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * A non-blocking TCP socket registered once with an {@link EpollPoller}, with a readiness flag per direction: an
 * event sets it, a read or write that comes back short or with {@code EAGAIN} leaves it cleared (it is cleared just
 * before the call, so an edge during the call is not lost). A reader that finds its socket not readable parks
 * without the speculative read the JDK makes; the poller unparks it. One reader and one writer at a time (callers
 * serialise their writes), as the floors use it.
 *
 * <p>Its native memory (a buffer and a captured-{@code errno} segment per direction) comes from a shared arena that
 * lives as long as the socket. No fd is used after close: every call on the fd holds a use count, and the last of
 * close and the in-flight calls forgets the registration, closes the fd and frees the arena.
 */
final class EpollSocket implements Closeable {
    static final int BUFFER = 16384;

    final int fd;
    final int generation = EpollPoller.nextGeneration();
    private final EpollPoller poller;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment readBuffer = arena.allocate(BUFFER, 8);
    private final MemorySegment readErrno = Epoll.errnoSegment(arena);
    private final MemorySegment writeBuffer = arena.allocate(BUFFER, 8);
    private final MemorySegment writeErrno = Epoll.errnoSegment(arena);
    /** Calls in flight on the fd, times two, plus one once closed. */
    private final AtomicInteger uses = new AtomicInteger();
    private volatile boolean readable;
    private volatile boolean writable = true;
    private volatile Thread reader;
    private volatile Thread writer;

    private EpollSocket(EpollPoller poller, int fd, boolean connecting) {
        this.poller = poller;
        this.fd = fd;
        this.writable = !connecting;
    }

    /** A socket listening on 127.0.0.1:port, registered for its accepts. */
    static EpollSocket listen(EpollPoller poller, int port, int backlog) throws IOException {
        try (Arena call = Arena.ofConfined()) {
            MemorySegment errno = Epoll.errnoSegment(call);
            int fd = Epoll.socket(errno);
            check(fd, "socket", errno);
            MemorySegment one = call.allocateFrom(ValueLayout.JAVA_INT, 1);
            check(Epoll.setIntOption(errno, fd, Epoll.SOL_SOCKET, Epoll.SO_REUSEADDR, one), "setsockopt", errno);
            check(Epoll.bind(errno, fd, Epoll.loopback(call, port)), "bind", errno);
            check(Epoll.listen(errno, fd, backlog), "listen", errno);
            EpollSocket socket = new EpollSocket(poller, fd, false);
            poller.register(socket, errno);
            return socket;
        }
    }

    /** A connection to 127.0.0.1:port, with TCP_NODELAY, once the connect has completed. */
    static EpollSocket connect(EpollPoller poller, int port) throws IOException {
        EpollSocket socket;
        try (Arena call = Arena.ofConfined()) {
            MemorySegment errno = Epoll.errnoSegment(call);
            int fd = Epoll.socket(errno);
            check(fd, "socket", errno);
            noDelay(fd, call, errno);
            socket = new EpollSocket(poller, fd, true);
            if (Epoll.connect(errno, fd, Epoll.loopback(call, port)) < 0 && Epoll.errno(errno) != Epoll.EINPROGRESS) {
                int e = Epoll.errno(errno);
                socket.close();
                throw new SocketException("connect: errno " + e);
            }
            // registered after connect, so the add sees a SYN_SENT socket (no spurious EPOLLOUT|EPOLLHUP)
            poller.register(socket, errno);
        }
        socket.awaitWritable();
        try (Arena call = Arena.ofConfined()) {
            MemorySegment errno = Epoll.errnoSegment(call);
            MemorySegment error = call.allocate(ValueLayout.JAVA_INT);
            MemorySegment length = call.allocateFrom(ValueLayout.JAVA_INT, 4);
            check(Epoll.getIntOption(errno, socket.fd, Epoll.SOL_SOCKET, Epoll.SO_ERROR, error, length), "getsockopt",
                    errno);
            if (error.get(ValueLayout.JAVA_INT, 0) != 0) {
                socket.close();
                throw new SocketException("connect: errno " + error.get(ValueLayout.JAVA_INT, 0));
            }
        }
        return socket;
    }

    /** The next connection (TCP_NODELAY, non-blocking, registered), parking while none is pending. */
    EpollSocket accept() throws IOException {
        while (true) {
            if (!readable) {
                awaitReadable();
            }
            int client;
            int e = 0;
            acquire();
            try {
                readable = false;
                client = Epoll.accept(readErrno, fd);
                if (client < 0) {
                    e = Epoll.errno(readErrno);
                }
            } finally {
                release();
            }
            if (client >= 0) {
                readable = true; // more may be pending: the next accept tries before it parks
                EpollSocket socket = new EpollSocket(poller, client, false);
                noDelay(client, socket.arena, socket.readErrno);
                poller.register(socket, socket.readErrno);
                return socket;
            }
            if (e != Epoll.EAGAIN && e != Epoll.EINTR) {
                throw new SocketException("accept: errno " + e);
            }
        }
    }

    /** Reads what has arrived, up to len bytes (at least one); -1 at the end of the stream. */
    int read(byte[] b, int off, int len) throws IOException {
        int want = Math.min(len, BUFFER);
        while (true) {
            if (!readable) {
                awaitReadable();
            }
            long n;
            int e = 0;
            acquire();
            try {
                readable = false; // before the call: an edge during it sets it again
                n = Epoll.read(readErrno, fd, readBuffer, want);
                if (n > 0) {
                    MemorySegment.copy(readBuffer, ValueLayout.JAVA_BYTE, 0, b, off, (int) n);
                } else if (n < 0) {
                    e = Epoll.errno(readErrno);
                }
            } finally {
                release();
            }
            if (n > 0) {
                if (n == want) {
                    readable = true; // a full read: more may be waiting
                }
                return (int) n;
            }
            if (n == 0) {
                readable = true; // the end stays readable
                return -1;
            }
            if (e == Epoll.EINTR) {
                readable = true;
            } else if (e != Epoll.EAGAIN) {
                throw new SocketException("read: errno " + e);
            }
        }
    }

    /** Writes all of it, parking while the socket's send buffer is full. */
    void write(byte[] b, int off, int len) throws IOException {
        while (len > 0) {
            int chunk = Math.min(len, BUFFER);
            if (!writable) {
                awaitWritable();
            }
            long n;
            int e = 0;
            acquire();
            try {
                MemorySegment.copy(b, off, writeBuffer, ValueLayout.JAVA_BYTE, 0, chunk);
                writable = false; // before the call, as in read
                n = Epoll.write(writeErrno, fd, writeBuffer, chunk);
                if (n < 0) {
                    e = Epoll.errno(writeErrno);
                }
            } finally {
                release();
            }
            if (n == chunk) {
                writable = true;
            }
            if (n > 0) {
                off += (int) n;
                len -= (int) n;
                continue;
            }
            if (e == Epoll.EINTR) {
                writable = true;
            } else if (e != Epoll.EAGAIN) {
                throw new SocketException("write: errno " + e);
            }
        }
    }

    InputStream input() {
        return new InputStream() {
            @Override
            public int read() throws IOException {
                byte[] one = new byte[1];
                return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
            }

            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                return len == 0 ? 0 : EpollSocket.this.read(b, off, len);
            }
        };
    }

    OutputStream output() {
        return new OutputStream() {
            @Override
            public void write(int b) throws IOException {
                write(new byte[] {(byte) b}, 0, 1);
            }

            @Override
            public void write(byte[] b, int off, int len) throws IOException {
                EpollSocket.this.write(b, off, len);
            }
        };
    }

    /** The poller's event: sets the flags it reports and unparks whoever waits on them. */
    void ready(int events) {
        if ((events & (Epoll.EPOLLIN | Epoll.EPOLLRDHUP | Epoll.EPOLLHUP | Epoll.EPOLLERR)) != 0) {
            readable = true;
            Thread t = reader;
            if (t != null) {
                LockSupport.unpark(t);
            }
        }
        if ((events & (Epoll.EPOLLOUT | Epoll.EPOLLHUP | Epoll.EPOLLERR)) != 0) {
            writable = true;
            Thread t = writer;
            if (t != null) {
                LockSupport.unpark(t);
            }
        }
    }

    private void awaitReadable() throws SocketException {
        reader = Thread.currentThread();
        try {
            while (!readable) {
                if ((uses.get() & 1) != 0) {
                    throw new SocketException("closed");
                }
                LockSupport.park(this);
            }
        } finally {
            reader = null;
        }
    }

    private void awaitWritable() throws SocketException {
        writer = Thread.currentThread();
        try {
            while (!writable) {
                if ((uses.get() & 1) != 0) {
                    throw new SocketException("closed");
                }
                LockSupport.park(this);
            }
        } finally {
            writer = null;
        }
    }

    private void acquire() throws SocketException {
        int u;
        do {
            u = uses.get();
            if ((u & 1) != 0) {
                throw new SocketException("closed");
            }
        } while (!uses.compareAndSet(u, u + 2));
    }

    private void release() {
        if (uses.addAndGet(-2) == 1) {
            release0();
        }
    }

    /** Marks it closed and wakes its waiters; the fd is closed now or by the last call in flight. */
    @Override
    public void close() {
        int u;
        do {
            u = uses.get();
            if ((u & 1) != 0) {
                return;
            }
        } while (!uses.compareAndSet(u, u | 1));
        Thread t = reader;
        if (t != null) {
            LockSupport.unpark(t);
        }
        t = writer;
        if (t != null) {
            LockSupport.unpark(t);
        }
        if (u == 0) {
            release0();
        }
    }

    private void release0() {
        poller.forget(this);
        try (Arena call = Arena.ofConfined()) {
            Epoll.close(Epoll.errnoSegment(call), fd);
        }
        arena.close();
    }

    private static void noDelay(int fd, Arena arena, MemorySegment errno) throws SocketException {
        MemorySegment one = arena.allocateFrom(ValueLayout.JAVA_INT, 1);
        check(Epoll.setIntOption(errno, fd, Epoll.IPPROTO_TCP, Epoll.TCP_NODELAY, one), "setsockopt", errno);
    }

    private static void check(int result, String call, MemorySegment errno) throws SocketException {
        if (result < 0) {
            throw new SocketException(call + ": errno " + Epoll.errno(errno));
        }
    }
}
