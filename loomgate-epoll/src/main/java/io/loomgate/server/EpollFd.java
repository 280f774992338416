package io.loomgate.server;

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

    EpollFd(EpollPoller poller, int fd, boolean writable) {
        this.poller = poller;
        this.fd = fd;
        this.writable = writable;
    }

    EpollPoller poller() {
        return poller;
    }

    /** Registers it with its poller; on failure closes the fd. */
    EpollFd register() throws SocketException {
        try {
            poller.register(this);
        } catch (SocketException e) {
            Libc.close(fd);
            throw e;
        }
        return this;
    }

    /** The poller's event: sets the flags it reports and unparks whoever waits on them. */
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
    }

    /**
     * Parks until readable, closed (throws), input shut (returns) or {@code deadline} ({@link System#nanoTime()};
     * 0 for none) passes (throws {@link SocketTimeoutException}). One reader at a time.
     */
    void awaitReadable(long deadline) throws SocketException, SocketTimeoutException {
        reader = Thread.currentThread();
        try {
            while (!mayRead() && !inputShut) {
                if (isClosed()) {
                    throw new SocketException("Socket closed");
                }
                if (deadline == 0) {
                    LockSupport.park(this);
                } else {
                    long left = deadline - System.nanoTime();
                    if (left <= 0) {
                        throw new SocketTimeoutException("Read timed out");
                    }
                    LockSupport.parkNanos(this, left);
                }
            }
        } finally {
            reader = null;
        }
    }

    /** Parks until writable or closed (throws). One writer at a time; its deadline is the owner's (a close). */
    void awaitWritable() throws SocketException {
        writer = Thread.currentThread();
        try {
            while (!mayWrite()) {
                if (isClosed()) {
                    throw new SocketException("Socket closed");
                }
                LockSupport.park(this);
            }
        } finally {
            writer = null;
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

    private void closeFd() {
        poller.forget(this);
        Libc.close(fd);
    }
}
