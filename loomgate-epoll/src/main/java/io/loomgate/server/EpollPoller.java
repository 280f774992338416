package io.loomgate.server;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One epoll instance with the process's sockets registered once, edge-triggered, for reading and writing
 * ({@code EPOLLIN|EPOLLOUT|EPOLLET|EPOLLRDHUP}), and the two loops that turn its events into readiness flags and
 * unparks ({@link EpollFd#ready}).
 *
 * <p>Why two loops, and why nothing is ever pinned. The busy loop runs as a virtual thread (as the JDK's own
 * {@code jdk.pollerMode=2} poller does), so unparking a reader while the carriers are busy queues it on a carrier and
 * needs no futex: it polls with timeout 0 and yields between polls. It never blocks in {@code epoll_wait}: a virtual
 * thread blocked in a foreign call pins its carrier, and the prototype (bench/floor-epoll) showed that stalling every
 * virtual thread queued behind it. When {@link #SPINS} polls in a row found nothing, it hands the blocking wait to the
 * idle loop, a platform thread that blocks in {@code epoll_wait} with no timeout, dispatches what wakes it, and hands
 * the polling back. So the pinning bound is one non-blocking {@code epoll_wait} (microseconds), with no reflection
 * into the scheduler and no eventfd: threads unparked from outside the carriers (timers, the JDK's own poller) find
 * every carrier free to run them, and the idle loop's kernel wait needs no wake-up but an event. The price is a futex
 * on each idle-to-busy turn, which is what the JDK's sockets pay on every wait.
 *
 * <p>Registrations: each one's {@code data} is its fd and a generation ({@code generation << 32 | fd}); the table maps
 * an fd to its live registration, so an event still in a buffer for a socket closed since (its fd maybe reused) is
 * dropped rather than delivered to the new socket.
 *
 * <p>Memory: the event buffers and the idle loop's {@code errno} come from this poller's arena; the poller lives as
 * long as the process (one, {@link #shared()}), so does the arena. Sockets hold no native memory (see {@link Libc}).
 */
final class EpollPoller {
    private static final Logger log = LoggerFactory.getLogger(EpollPoller.class);
    /** Empty polls in a row before the busy loop hands over to the idle loop (the prototype: 0, 4, 32 all alike). */
    static final int SPINS = Integer.getInteger("loomgate.epoll.spins", 4);
    private static final int MAX_EVENTS = 256;
    private static final AtomicInteger GENERATIONS = new AtomicInteger();

    private final Arena arena = Arena.ofShared();
    private final int epfd;
    private final ReentrantLock tableLock = new ReentrantLock();
    /** Registrations by fd; replaced by a larger copy under the lock, read without it. */
    private volatile AtomicReferenceArray<EpollFd> table = new AtomicReferenceArray<>(1024);
    /** True while the idle loop owns the waiting (the busy loop is parked). */
    private volatile boolean idle;
    private final Thread busyLoop;
    private final Thread idleLoop;
    private final AtomicInteger handoffs = new AtomicInteger();

    private EpollPoller() {
        MemorySegment errno = Libc.errnoSegment();
        epfd = Libc.epollCreate(errno);
        if (epfd < 0) {
            throw new IllegalStateException("epoll_create1: " + Libc.describe(Libc.errno(errno)));
        }
        busyLoop = Thread.ofVirtual().name("epoll-busy").unstarted(this::busyLoop);
        idleLoop = Thread.ofPlatform().daemon().name("epoll-idle").unstarted(this::idleLoop);
        busyLoop.start();
        idleLoop.start();
    }

    /** The process's poller, started on first use. */
    static EpollPoller shared() {
        return Holder.POLLER;
    }

    private static final class Holder {
        static final EpollPoller POLLER = new EpollPoller();
    }

    /** A new generation for a registration about to be made. */
    static int nextGeneration() {
        return GENERATIONS.incrementAndGet();
    }

    /** How often the busy loop has handed over to the idle loop (tests, diagnostics). */
    int handoffs() {
        return handoffs.get();
    }

    /** Registers the fd once, for good; its first readiness comes as an event if it is ready already. */
    void register(EpollFd r) throws java.net.SocketException {
        tableLock.lock();
        try {
            AtomicReferenceArray<EpollFd> t = table;
            if (r.fd >= t.length()) {
                AtomicReferenceArray<EpollFd> bigger = new AtomicReferenceArray<>(Math.max(r.fd + 1, t.length() * 2));
                for (int i = 0; i < t.length(); i++) {
                    bigger.set(i, t.get(i));
                }
                table = t = bigger;
            }
            t.set(r.fd, r);
        } finally {
            tableLock.unlock();
        }
        MemorySegment event = MemorySegment.ofArray(new long[2]);
        Libc.setEvent(event, Libc.EPOLLIN | Libc.EPOLLOUT | Libc.EPOLLET | Libc.EPOLLRDHUP,
                (long) r.generation << 32 | r.fd);
        MemorySegment errno = Libc.errnoSegment();
        if (Libc.epollCtl(errno, epfd, Libc.EPOLL_CTL_ADD, r.fd, event) < 0) {
            forget(r);
            throw new java.net.SocketException("epoll_ctl ADD: " + Libc.describe(Libc.errno(errno)));
        }
    }

    /** Forgets the registration before its fd is closed (closing the fd takes it out of the epoll set). */
    void forget(EpollFd r) {
        tableLock.lock();
        try {
            AtomicReferenceArray<EpollFd> t = table;
            if (r.fd < t.length()) {
                t.compareAndSet(r.fd, r, null);
            }
        } finally {
            tableLock.unlock();
        }
    }

    private void busyLoop() {
        MemorySegment errno = Libc.errnoSegment(arena);
        MemorySegment events = arena.allocate(Libc.EVENT_SIZE * MAX_EVENTS, 8);
        int empty = 0;
        while (true) {
            int n = poll(errno, events, 0);
            if (n > 0 || ++empty < SPINS) {
                if (n > 0) {
                    empty = 0;
                }
                Thread.yield(); // the readers just unparked (and everyone else queued) run before the next poll
                continue;
            }
            empty = 0;
            handoffs.incrementAndGet();
            idle = true;
            LockSupport.unpark(idleLoop);
            while (idle) {
                LockSupport.park(this);
            }
        }
    }

    private void idleLoop() {
        MemorySegment errno = Libc.errnoSegment(arena);
        MemorySegment events = arena.allocate(Libc.EVENT_SIZE * MAX_EVENTS, 8);
        while (true) {
            while (!idle) {
                LockSupport.park(this);
            }
            if (poll(errno, events, -1) > 0) {
                idle = false;
                LockSupport.unpark(busyLoop);
            }
        }
    }

    /** One {@code epoll_wait} and its dispatch; the count of events. */
    private int poll(MemorySegment errno, MemorySegment events, int timeoutMillis) {
        int n = Libc.epollWait(errno, epfd, events, MAX_EVENTS, timeoutMillis);
        if (n < 0) {
            int e = Libc.errno(errno);
            if (e != Libc.EINTR) {
                log.error("epoll_wait failed: {}", Libc.describe(e)); // EBADF/EINVAL: a bug; not a loop to spin
                LockSupport.parkNanos(100_000_000L);
            }
            return 0;
        }
        for (int i = 0; i < n; i++) {
            long data = Libc.eventData(events, i);
            int fd = (int) data;
            AtomicReferenceArray<EpollFd> t = table; // per event: a registration since may be in a grown copy only
            EpollFd r = fd < t.length() ? t.get(fd) : null;
            if (r != null && r.generation == (int) (data >>> 32)) {
                try {
                    r.ready(Libc.eventMask(events, i));
                } catch (RuntimeException e) { // an idle connection's resumption failed: never the poller's end
                    log.error("epoll: dispatching an event for fd {} failed", fd, e);
                }
            }
        }
        return n;
    }
}
