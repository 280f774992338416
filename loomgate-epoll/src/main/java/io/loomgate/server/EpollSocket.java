package io.loomgate.server;

import io.loomgate.threads.QuietCheck;
import io.loomgate.tls.RecordReadAhead;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.foreign.MemorySegment;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketAddress;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.util.Objects;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A TCP connection on the epoll transport, accepted ({@link EpollServerSocket}) or dialled to an origin
 * ({@link #connect}), seen by the rest of the gateway as the {@link Socket} the JDK would have given (so the HTTP/1.1
 * and HTTP/2 loops, and JSSE layered over it for TLS, run unchanged): blocking streams whose waits park the virtual
 * thread until the {@link EpollPoller} reports readiness ({@link EpollFd}).
 *
 * <p>Deadlines as the gateway sets them: {@link #setSoTimeout} bounds each read ({@link java.net.SocketTimeoutException});
 * {@link #shutdownInput()} (the watchdog's cut) ends a parked read with the end of stream; {@link #close()} from any
 * thread ends a parked read or write with a {@link SocketException}. Half-close: {@link #shutdownOutput()} sends FIN
 * and reads go on; the peer's FIN ({@code EPOLLRDHUP}) reads as the end of stream; {@code EPOLLERR} wakes both
 * directions, whose next call reports the error ({@code ECONNRESET}, ...).
 *
 * <p>Threading: readers and writers are each serialised by a {@link ReentrantLock}, as the JDK's socket does (never
 * {@code synchronized}: a thread parked for readiness must not pin its carrier); the fd's single waiter slot per
 * direction relies on it. No native memory: reads and writes go straight between the caller's
 * array and the kernel (critical calls, {@link Libc}), and {@code errno} lands in an {@code int[]} per direction.
 * {@link #getChannel()} is null: an idle connection parks as a callback on its registration instead
 * ({@link #whenReadable}, the listener's {@code EpollIdleConnections}).
 */
final class EpollSocket extends Socket implements QuietCheck, RecordReadAhead {
    /**
     * Where {@link #quietNow} reads its byte. A byte found there means the connection is not reused, so it is never
     * looked at: every socket may share one array, and a probe makes none (it made 16 B per lease check).
     */
    private static final byte[] PROBE_SINK = new byte[1];

    private final EpollFd fd;
    private final InetSocketAddress remote;
    private final MemorySegment readErrno = Libc.errnoSegment();
    private final MemorySegment writeErrno = Libc.errnoSegment();
    /** Readers one at a time, as the JDK's socket serialises them (the proxy's upload thread and the connection's). */
    private final ReentrantLock readLock = new ReentrantLock();
    private final ReentrantLock writeLock = new ReentrantLock();
    /** The socket's own stream, or a read-ahead buffer over it ({@link #readAhead}). */
    private volatile InputStream in = new In();
    /** Reads that reached the kernel (tests, diagnostics); under the read lock. */
    private long readCalls;
    private final OutputStream out = new Out();
    private volatile InetSocketAddress local;
    private volatile int soTimeoutMillis;
    private volatile boolean tcpNoDelay;
    private volatile boolean outputShut;

    /** Over a registered fd, connected to {@code remote}, with TCP_NODELAY set. */
    EpollSocket(EpollFd fd, InetSocketAddress remote) throws SocketException {
        super(new InertSocketImpl());
        this.fd = fd;
        this.remote = remote;
        this.tcpNoDelay = true;
    }

    /**
     * A connection to {@code address} (TCP_NODELAY and SO_KEEPALIVE on, as the upstream client asks of the JDK's
     * sockets), made within {@code timeoutMillis} (0: no limit). Non-blocking: {@code connect} returns at once, the
     * fd is registered, and the caller parks until the poller reports it writable (connected) or in error.
     *
     * @throws SocketTimeoutException when it was not connected in time
     * @throws ConnectException       when the connect failed (refused, unreachable), naming errno
     */
    static EpollSocket connect(EpollPoller poller, InetSocketAddress address, int timeoutMillis) throws IOException {
        if (timeoutMillis < 0) {
            throw new IllegalArgumentException("timeout < 0");
        }
        long deadline = timeoutMillis == 0 ? 0 : System.nanoTime() + timeoutMillis * 1_000_000L;
        // Registered only once connect has begun: a socket that never connected reports EPOLLHUP, which would mark
        // it ended for good (EpollFd's sticky flags).
        EpollFd fd = EpollFd.open(poller, EpollFd.socket(address), false, (s, errno) -> {
            Libc.check(Libc.setIntOption(errno, s, Libc.IPPROTO_TCP, Libc.TCP_NODELAY, 1), "setsockopt TCP_NODELAY",
                    errno);
            Libc.check(Libc.setIntOption(errno, s, Libc.SOL_SOCKET, Libc.SO_KEEPALIVE, 1), "setsockopt SO_KEEPALIVE",
                    errno);
            if (Libc.connect(errno, s, Libc.sockaddr(address)) < 0) {
                int e = Libc.errno(errno);
                if (e != Libc.EINPROGRESS && e != Libc.EINTR) { // EINTR: the connect goes on, as EINPROGRESS
                    throw connectFailed(e);
                }
            }
        });
        try {
            // Connected (or failed) when the poller says writable; the edge comes even if it was done already.
            try {
                fd.awaitWritable(deadline, "Connect timed out");
            } catch (SocketTimeoutException timedOut) {
                // The flag is the poller's report, which lags the kernel when the poller waits for a CPU (10,000
                // client connections on a loaded machine, ManyConnectionsIT's 502s): the deadline is the kernel's
                // to judge, as the JDK's connect asks it after its park (pollConnectNow), so ask before failing.
                int outcome = fd.connectOutcome(Libc.sockaddr(address));
                if (outcome < 0) {
                    throw timedOut;
                }
                if (outcome > 0) {
                    throw connectFailed(outcome);
                }
                fd.writable = true; // a new connection's send buffer is empty; a send that finds it full clears this
                return new EpollSocket(fd, address);
            }
            int e = fd.pendingError();
            if (e != 0) {
                throw connectFailed(e);
            }
            return new EpollSocket(fd, address);
        } catch (IOException | RuntimeException e) {
            fd.close();
            throw e;
        }
    }

    private static ConnectException connectFailed(int errno) {
        return new ConnectException(errno == Libc.ECONNREFUSED ? "Connection refused" : Libc.describe(errno));
    }

    /** Reads what has arrived, up to len bytes (at least one); -1 at the end of the stream or once input is shut. */
    int read(byte[] b, int off, int len) throws IOException {
        Objects.checkFromIndexSize(off, len, b.length);
        if (len == 0) {
            return 0;
        }
        readLock.lock();
        try {
            return readLocked(b, off, len);
        } finally {
            readLock.unlock();
        }
    }

    private int readLocked(byte[] b, int off, int len) throws IOException {
        long timeout = soTimeoutMillis * 1_000_000L;
        long deadline = 0;
        while (true) {
            if (fd.inputShut()) {
                return -1;
            }
            if (!fd.mayRead()) {
                if (timeout > 0 && deadline == 0) {
                    deadline = System.nanoTime() + timeout;
                }
                fd.awaitReadable(deadline);
                continue;
            }
            long n;
            int e = 0;
            fd.acquire();
            try {
                fd.readable = false; // before the call: an edge during it sets it again
                readCalls++;
                n = Libc.read(readErrno, fd.fd, MemorySegment.ofArray(b).asSlice(off, len), len);
                if (n < 0) {
                    e = Libc.errno(readErrno);
                }
            } finally {
                fd.release();
            }
            if (n > 0) {
                if (n == len) {
                    fd.readable = true; // a full read: more may be waiting
                }
                return (int) n;
            }
            if (n == 0) {
                fd.readable = true; // the end stays readable
                return -1;
            }
            if (e == Libc.EINTR) {
                fd.readable = true;
            } else if (e != Libc.EAGAIN) {
                fd.readable = true; // the error stays: the next read reports it too
                throw new SocketException(e == Libc.ECONNRESET ? "Connection reset" : "read: " + Libc.describe(e));
            }
        }
    }

    /**
     * Reads through a buffer of {@code bytes} from now on, for JSSE layered over a connection to an origin: one read
     * of the kernel takes a whole TLS record (often more) where JSSE asks for its header, then its body.
     */
    @Override
    public void readAhead(int bytes) {
        in = new BufferedInputStream(new In(), bytes);
    }

    /** The registration (tests: an event dispatched as the poller would, late). */
    EpollFd registration() {
        return fd;
    }

    /** How many reads reached the kernel so far (tests: one per TLS record with {@link #readAhead}). */
    long readCalls() {
        readLock.lock();
        try {
            return readCalls;
        } finally {
            readLock.unlock();
        }
    }

    /**
     * Whether nothing has arrived since the last read (no byte, no FIN, no error): one read that never parks, asked
     * of the kernel (not of the readiness flag, which the poller may not have set yet), as the JDK's channel probe.
     * The pool's check of an idle connection to an origin; false while another thread reads.
     */
    @Override
    public boolean quietNow() {
        if (!readLock.tryLock()) {
            return false;
        }
        try {
            if (fd.inputShut()) {
                return false;
            }
            long n;
            int e = 0;
            fd.acquire();
            try {
                fd.readable = false; // as in read: an edge during the call sets it again
                n = Libc.read(readErrno, fd.fd, MemorySegment.ofArray(PROBE_SINK), 1);
                if (n < 0) {
                    e = Libc.errno(readErrno);
                }
            } finally {
                fd.release();
            }
            if (n < 0 && e == Libc.EAGAIN) {
                return true;
            }
            fd.readable = true; // a byte, the end or an error: the next read finds it
            return false;
        } catch (SocketException closed) {
            return false;
        } finally {
            readLock.unlock();
        }
    }

    /**
     * The poller's flags, no system call: set by an edge (a byte, the FIN, an error) since the last read began, or
     * the input shut or the socket closed. A read that took everything leaves them clear, so on a pooled connection
     * whose answer was read whole they stay clear until the origin sends or closes. A flag set by the edge of bytes
     * the last read already took (the poller late) costs one {@link #quietNow} that finds nothing.
     */
    @Override
    public boolean mayHaveNews() {
        return fd.mayRead() || fd.inputShut() || fd.isClosed();
    }

    /**
     * The bytes a read would find without waiting (the kernel's count, {@code FIONREAD}), as the JDK's socket answers:
     * 0 once input is shut, an exception once closed. The gateway's body relay depends on it: it reads on while
     * something is waiting and flushes when nothing is, so a constant 0 turned an upload it judged slow into one-byte
     * reads (8 MiB uploads timed out).
     */
    int available() throws IOException {
        int waiting = fd.bytesWaiting(); // closed: throws, before the input's state, as the JDK's socket does
        return fd.inputShut() ? 0 : waiting;
    }

    /** Writes all of it, parking while the send buffer is full. */
    void write(byte[] b, int off, int len) throws IOException {
        Objects.checkFromIndexSize(off, len, b.length);
        writeLock.lock();
        try {
            while (len > 0) {
                if (outputShut) {
                    throw new SocketException("Socket output is shutdown");
                }
                if (!fd.mayWrite()) {
                    fd.awaitWritable(0, "Write timed out");
                }
                int n = sendOnce(b, off, len);
                off += n;
                len -= n;
            }
        } finally {
            writeLock.unlock();
        }
    }

    /**
     * One write that never parks (the GOAWAY of an idle connection parked with no thread, as it ends): how many
     * bytes went out, 0 when the send buffer is full.
     */
    int writeNow(byte[] b) throws IOException {
        writeLock.lock();
        try {
            if (outputShut) {
                throw new SocketException("Socket output is shutdown");
            }
            return sendOnce(b, 0, b.length);
        } finally {
            writeLock.unlock();
        }
    }

    /** One {@code send}: the bytes that went out, 0 when none could (EAGAIN, EINTR); the write lock held. */
    private int sendOnce(byte[] b, int off, int len) throws IOException {
        long n;
        int e = 0;
        fd.acquire();
        try {
            fd.writable = false; // before the call, as in read
            n = Libc.send(writeErrno, fd.fd, MemorySegment.ofArray(b).asSlice(off, len), len);
            if (n < 0) {
                e = Libc.errno(writeErrno);
            }
        } finally {
            fd.release();
        }
        if (n == len) {
            fd.writable = true;
        }
        if (n >= 0) {
            return (int) n;
        }
        if (e == Libc.EINTR) {
            fd.writable = true;
        } else if (e != Libc.EAGAIN) {
            fd.writable = true;
            throw new SocketException(e == Libc.EPIPE ? "Broken pipe"
                    : e == Libc.ECONNRESET ? "Connection reset" : "write: " + Libc.describe(e));
        }
        return 0;
    }

    /** Runs {@code then} once when the socket is readable, at its end or in error ({@link EpollFd#whenReadable}). */
    void whenReadable(Runnable then) {
        fd.whenReadable(then);
    }

    @Override
    public InputStream getInputStream() throws IOException {
        if (isClosed()) {
            throw new SocketException("Socket is closed");
        }
        return in;
    }

    @Override
    public OutputStream getOutputStream() throws IOException {
        if (isClosed()) {
            throw new SocketException("Socket is closed");
        }
        return out;
    }

    /** Closes from any thread: a parked reader or writer gets a {@link SocketException}; the fd closes after them. */
    @Override
    public void close() {
        fd.close();
    }

    @Override
    public boolean isClosed() {
        return fd.isClosed();
    }

    /** Reads end (a parked one at once) with the end of stream; the kernel is told too (SHUT_RD). */
    @Override
    public void shutdownInput() throws IOException {
        fd.shutInput();
        fd.shutdown(Libc.SHUT_RD);
    }

    /** FIN to the peer; reads go on. */
    @Override
    public void shutdownOutput() throws IOException {
        outputShut = true;
        fd.shutdown(Libc.SHUT_WR);
    }

    @Override
    public boolean isInputShutdown() {
        return fd.inputShut();
    }

    @Override
    public boolean isOutputShutdown() {
        return outputShut;
    }

    @Override
    public boolean isConnected() {
        return true;
    }

    @Override
    public boolean isBound() {
        return true;
    }

    @Override
    public InetAddress getInetAddress() {
        return remote.getAddress();
    }

    @Override
    public int getPort() {
        return remote.getPort();
    }

    @Override
    public SocketAddress getRemoteSocketAddress() {
        return remote;
    }

    @Override
    public InetAddress getLocalAddress() {
        return localAddress().getAddress();
    }

    @Override
    public int getLocalPort() {
        return localAddress().getPort();
    }

    @Override
    public SocketAddress getLocalSocketAddress() {
        return localAddress();
    }

    /** Asked of the kernel once, when first wanted (not on every accept). */
    private InetSocketAddress localAddress() {
        InetSocketAddress a = local;
        if (a == null) {
            a = fd.localAddress();
            if (a == null) {
                return new InetSocketAddress(0); // closed: as the JDK's socket, an unknown local address
            }
            local = a;
        }
        return a;
    }

    @Override
    public void setTcpNoDelay(boolean on) throws SocketException {
        if (on != tcpNoDelay) {
            fd.setOption(Libc.IPPROTO_TCP, Libc.TCP_NODELAY, on ? 1 : 0);
            tcpNoDelay = on;
        }
    }

    @Override
    public boolean getTcpNoDelay() {
        return tcpNoDelay;
    }

    @Override
    public void setKeepAlive(boolean on) throws SocketException {
        fd.setOption(Libc.SOL_SOCKET, Libc.SO_KEEPALIVE, on ? 1 : 0);
    }

    @Override
    public void setSoTimeout(int timeout) throws SocketException {
        if (timeout < 0) {
            throw new IllegalArgumentException("timeout < 0");
        }
        soTimeoutMillis = timeout;
    }

    @Override
    public int getSoTimeout() {
        return soTimeoutMillis;
    }

    @Override
    public String toString() {
        return "EpollSocket[fd=" + fd.fd + (isClosed() ? ", closed" : "") + ", remote=" + remote + "]";
    }

    private final class In extends InputStream {
        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            return EpollSocket.this.read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            return EpollSocket.this.read(b, off, len);
        }

        @Override
        public int available() throws IOException {
            return EpollSocket.this.available();
        }

        @Override
        public void close() {
            EpollSocket.this.close();
        }
    }

    private final class Out extends OutputStream {
        @Override
        public void write(int b) throws IOException {
            EpollSocket.this.write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            EpollSocket.this.write(b, off, len);
        }

        @Override
        public void close() {
            EpollSocket.this.close();
        }
    }
}
