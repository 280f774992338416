package io.loomgate.server;

import io.loomgate.threads.VarHandles;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * One file descriptor registered with the {@link EpollPoller}: its readiness flags, the threads waiting on them, and
 * its life (no fd is ever used after close). Shared by {@link EpollSocket} and {@link EpollServerSocket}.
 *
 * <p>Readiness, one flag per direction: an event sets it (and unparks the waiter); a call that comes back short or
 * with {@code EAGAIN} leaves it cleared (it is cleared just before the call, so an edge during the call is not lost).
 * A reader that finds its fd not readable parks without the speculative read the JDK's sockets make.
 *
 * <p>Life: every call on the fd holds a use ({@link #acquire()}/{@link #release()}); {@link #close()} marks it closed
 * and wakes its waiters, which throw {@link SocketException}; the last of close and the calls in flight forgets the
 * registration and closes the fd. So a reader parked while another thread closes gets an exception, never a hang,
 * and no call can reach an fd number the kernel has since given to another socket. The registration's generation
 * keeps the poller's late events for a closed fd off its successor.
 *
 * <p>Birth: {@link #open} sets a new fd up and registers it, and closes it exactly once if any step fails, so the
 * sockets never handle a raw fd number themselves. The calls on a registered fd besides reads and writes (options,
 * shutdown, addresses) are here too, each holding a use.
 */
final class EpollFd {
    final int fd;
    final int generation = EpollPoller.nextGeneration();
    private final EpollPoller poller;
    /** Calls in flight on the fd, times two, plus one once closed. */
    private final AtomicInteger uses = new AtomicInteger();
    volatile boolean readable;
    volatile boolean writable;
    /**
     * Sticky: the peer's FIN ({@code EPOLLRDHUP}), a hang-up or an error was reported. Edge-triggered epoll reports it
     * once, often with the last data, so after the short read that drains the data no new edge would come: from here
     * on reads never park (they return the end of stream or the error).
     */
    private volatile boolean readEnd;
    /** Sticky: a hang-up or an error; writes never park again (the next one reports it). */
    private volatile boolean writeEnd;
    /** The input was shut down (the watchdog's cut, or the owner): reads end at once, with the end of stream. */
    private volatile boolean inputShut;
    private volatile Thread reader;
    private volatile Thread writer;
    /** What runs once on the next readiness to read instead of a parked reader: an idle connection's resumption. */
    private volatile Runnable onReadable;
    private static final VarHandle ON_READABLE = VarHandles.field(MethodHandles.lookup(), "onReadable", Runnable.class);

    private EpollFd(EpollPoller poller, int fd, boolean writable) {
        this.poller = poller;
        this.fd = fd;
        this.writable = writable;
    }

    EpollPoller poller() {
        return poller;
    }

    /** What is done to a new fd before it is registered (bind and listen, options, connect). */
    @FunctionalInterface
    interface Setup {
        void run(int fd, MemorySegment errno) throws IOException;
    }

    /**
     * A new TCP socket (non-blocking, close-on-exec) of {@code address}'s family, for {@link #open}.
     *
     * @throws SocketException naming errno when there is none to be had (EMFILE and the like)
     */
    static int socket(InetSocketAddress address) throws SocketException {
        MemorySegment errno = Libc.errnoSegment();
        int family = address.getAddress().getAddress().length == 4 ? Libc.AF_INET : Libc.AF_INET6;
        int s = Libc.socket(errno, family);
        Libc.check(s, "socket", errno);
        return s;
    }

    /**
     * Takes {@code fd} (a new socket, or an accepted one), runs {@code setup} on it and registers it with
     * {@code poller}. The one owner of a raw fd: if any step fails the fd is closed, once, and the failure thrown.
     */
    static EpollFd open(EpollPoller poller, int fd, boolean writable, Setup setup) throws IOException {
        try {
            setup.run(fd, Libc.errnoSegment());
        } catch (IOException | RuntimeException e) {
            Libc.close(fd);
            throw e;
        }
        EpollFd registered = new EpollFd(poller, fd, writable);
        try {
            poller.register(registered);
        } catch (SocketException e) {
            Libc.close(fd);
            throw e;
        }
        return registered;
    }

    /**
     * The poller's event: sets the flags it reports, unparks whoever waits on them, and runs an idle connection's
     * {@link #whenReadable} callback if one waits for reading.
     */
    void ready(int events) {
        if ((events & (Libc.EPOLLRDHUP | Libc.EPOLLHUP | Libc.EPOLLERR)) != 0) {
            readEnd = true;
        }
        if ((events & (Libc.EPOLLHUP | Libc.EPOLLERR)) != 0) {
            writeEnd = true;
        }
        if ((events & (Libc.EPOLLIN | Libc.EPOLLRDHUP | Libc.EPOLLHUP | Libc.EPOLLERR)) != 0) {
            readable = true;
            Thread t = reader;
            if (t != null) {
                LockSupport.unpark(t);
            }
        }
        if ((events & (Libc.EPOLLOUT | Libc.EPOLLHUP | Libc.EPOLLERR)) != 0) {
            writable = true;
            Thread t = writer;
            if (t != null) {
                LockSupport.unpark(t);
            }
        }
        if ((events & (Libc.EPOLLIN | Libc.EPOLLRDHUP | Libc.EPOLLHUP | Libc.EPOLLERR)) != 0) {
            runWhenReadable(); // last: a resumed connection finds both flags as this event left them
        }
    }

    /**
     * Parks until readable, closed (throws), input shut (returns) or {@code deadline} ({@link System#nanoTime()};
     * 0 for none) passes (throws {@link SocketTimeoutException}). One reader at a time.
     */
    void awaitReadable(long deadline) throws SocketException, SocketTimeoutException {
        reader = Thread.currentThread();
        try {
            await(true, deadline, "Read timed out");
        } finally {
            reader = null;
        }
    }

    /**
     * Parks until writable, closed (throws) or {@code deadline} (0 for none: a write's deadline is its owner's, a
     * close) passes (throws {@link SocketTimeoutException} with {@code timedOut}). One writer at a time.
     */
    void awaitWritable(long deadline, String timedOut) throws SocketException, SocketTimeoutException {
        writer = Thread.currentThread();
        try {
            await(false, deadline, timedOut);
        } finally {
            writer = null;
        }
    }

    private void await(boolean read, long deadline, String timedOut) throws SocketException, SocketTimeoutException {
        while (read ? !mayRead() && !inputShut : !mayWrite()) {
            if (isClosed()) {
                throw new SocketException("Socket closed");
            }
            if (deadline == 0) {
                LockSupport.park(this);
            } else {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new SocketTimeoutException(timedOut);
                }
                LockSupport.parkNanos(this, left);
            }
        }
    }

    /**
     * Runs {@code then} once, on the poller's thread at the next readiness to read (data, the peer's FIN, an error),
     * or now on this thread if a read would not park (or the fd is closed): an idle connection parked with no
     * thread. The flag is set before the callback is looked at, and the callback before the flag: one side sees
     * the other, and the compare-and-set runs it once.
     */
    void whenReadable(Runnable then) {
        onReadable = then;
        if (mayRead() || inputShut || isClosed()) {
            runWhenReadable();
        }
    }

    /**
     * Runs the callback only if a read would find something now ({@link #readsSomething}): the readable flag may be
     * stale by then. The event that unparks a reader runs the callback after the unpark, and in that gap the reader
     * can read the request, answer it and park the connection again (session 53: 7 of 800 runs of
     * {@code EpollIdleConnectionParkingTest}'s permit case at load 16-20), or another poller thread's older event can
     * set the flag after the bytes were read. The callback resumed such a connection with nothing to read, and its
     * new thread then waited the hand-off delay without a hand-off permit. A callback not run now stays registered:
     * bytes that arrive later bring an edge of their own, whose dispatch looks again.
     */
    private void runWhenReadable() {
        Runnable then = onReadable;
        if (then != null && readsSomething() && ON_READABLE.compareAndSet(this, then, null)) {
            then.run();
        }
    }

    /**
     * Whether a read would not park: the end, an error, input shut, closed, or bytes the kernel holds ({@code
     * FIONREAD}, one system call per parked connection's wake-up, never on a running connection's reads).
     */
    private boolean readsSomething() {
        if (readEnd || inputShut || isClosed()) {
            return true;
        }
        try {
            return bytesWaiting() > 0;
        } catch (SocketException closed) {
            return true; // closed meanwhile: the callback runs and finds it so
        }
    }

    /** Whether a read may find something (data, the end, an error) without parking first. */
    boolean mayRead() {
        return readable || readEnd;
    }

    /** Whether a write may go out (or report its error) without parking first. */
    boolean mayWrite() {
        return writable || writeEnd;
    }

    boolean inputShut() {
        return inputShut;
    }

    /** Reads end from now on; a parked reader returns at once. */
    void shutInput() {
        inputShut = true;
        Thread t = reader;
        if (t != null) {
            LockSupport.unpark(t);
        }
    }

    /** A use of the fd for one call. */
    void acquire() throws SocketException {
        int u;
        do {
            u = uses.get();
            if ((u & 1) != 0) {
                throw new SocketException("Socket closed");
            }
        } while (!uses.compareAndSet(u, u + 2));
    }

    void release() {
        if (uses.addAndGet(-2) == 1) {
            closeFd();
        }
    }

    boolean isClosed() {
        return (uses.get() & 1) != 0;
    }

    /** Marks it closed and wakes its waiters; the fd is closed now or by the last call in flight. Idempotent. */
    void close() {
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
            closeFd();
        }
    }

    /** Sets an int socket option. */
    void setOption(int level, int option, int value) throws SocketException {
        acquire();
        try {
            MemorySegment errno = Libc.errnoSegment();
            Libc.check(Libc.setIntOption(errno, fd, level, option, value), "setsockopt", errno);
        } finally {
            release();
        }
    }

    /**
     * The kernel's word on the non-blocking connect begun on this fd, asked by connecting to {@code address} again
     * (what the poller's writable flag only reports once the poller has got round to the event): 0 when it is
     * connected, -1 while it is still in progress, else the errno it failed with.
     */
    int connectOutcome(MemorySegment address) throws SocketException {
        acquire();
        try {
            MemorySegment errno = Libc.errnoSegment();
            if (Libc.connect(errno, fd, address) == 0) {
                return 0;
            }
            int e = Libc.errno(errno);
            return switch (e) {
                case Libc.EISCONN -> 0;
                case Libc.EALREADY, Libc.EINPROGRESS, Libc.EINTR -> -1;
                default -> e;
            };
        } finally {
            release();
        }
    }

    /** The pending error of the socket ({@code SO_ERROR}, which reading clears): 0, or how a connect ended. */
    int pendingError() throws SocketException {
        int[] value = new int[1];
        acquire();
        try {
            MemorySegment errno = Libc.errnoSegment();
            Libc.check(Libc.intOption(errno, fd, Libc.SOL_SOCKET, Libc.SO_ERROR, value), "getsockopt SO_ERROR",
                    errno);
        } finally {
            release();
        }
        return value[0];
    }

    /** {@code shutdown(how)}; a socket the peer has already reset (ENOTCONN) is no error. */
    void shutdown(int how) throws SocketException {
        acquire();
        try {
            MemorySegment errno = Libc.errnoSegment();
            if (Libc.shutdown(errno, fd, how) < 0 && Libc.errno(errno) != Libc.ENOTCONN) {
                throw new SocketException("shutdown: " + Libc.describe(Libc.errno(errno)));
            }
        } finally {
            release();
        }
    }

    /** The bytes waiting in the receive queue ({@code ioctl FIONREAD}). */
    int bytesWaiting() throws SocketException {
        int[] count = new int[1];
        acquire();
        try {
            MemorySegment errno = Libc.errnoSegment();
            Libc.check(Libc.bytesWaiting(errno, fd, count), "ioctl FIONREAD", errno);
        } finally {
            release();
        }
        return count[0];
    }

    /** The local address ({@code getsockname}), or null when the kernel cannot say or the fd is closed. */
    InetSocketAddress localAddress() {
        try {
            acquire();
        } catch (SocketException closed) {
            return null;
        }
        try {
            return localAddressOf(fd);
        } finally {
            release();
        }
    }

    /** {@code getsockname} of a raw fd (one being set up), or null. */
    static InetSocketAddress localAddressOf(int fd) {
        byte[] storage = new byte[Libc.SOCKADDR_SIZE];
        int[] length = {Libc.SOCKADDR_SIZE};
        return Libc.getsockname(Libc.errnoSegment(), fd, MemorySegment.ofArray(storage),
                MemorySegment.ofArray(length)) == 0 ? Libc.address(storage) : null;
    }

    private void closeFd() {
        poller.forget(this);
        Libc.close(fd);
    }
}
