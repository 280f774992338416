import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.reflect.Field;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * One epoll instance with its sockets registered once, edge-triggered, for reading and writing
 * ({@code EPOLLIN|EPOLLOUT|EPOLLET|EPOLLRDHUP}), and the loop that turns its events into readiness flags and unparks.
 * The loop runs as a virtual thread (as the JDK's {@code jdk.pollerMode=2} poller does), so unparking a reader while
 * the carrier is busy queues it on that carrier and needs no futex: it polls with timeout 0 and yields between polls
 * while there is work, and only when {@code spins} polls in a row found nothing does it block in {@code epoll_wait},
 * which pins its carrier (a foreign call cannot unmount) until an event comes: the carrier had nothing else to run.
 * {@code -Dfloor.poller=platform} runs the same loop on a platform thread that always blocks, for comparison.
 *
 * <p>The virtual poller must not block while virtual threads wait in the scheduler's queues: pinned in
 * {@code epoll_wait}, it would hold a carrier they need until the next event (with one carrier, all of them). Yields
 * alone do not ensure that: a started thread goes to a submission queue and an unparked one to a carrier's local
 * queue, and a yield may find the poller run again before them (H2's floor stalled so, for seconds). So before it
 * blocks it asks the JDK's scheduler (a {@link ForkJoinPool}, read by reflection: run with
 * {@code --add-opens java.base/java.lang=ALL-UNNAMED}) whether anything is queued, and yields instead if so; without
 * that access it blocks for at most {@code floor.block} ms (1 by default). The floors also start everything from a
 * virtual thread. A transport in the gateway would need the same guarantee without reflection (a scheduler hook, or a
 * bounded block), and a wake-up (an eventfd in the set) for threads unparked from outside the carriers.
 *
 * <p>Each registration's {@code data} is its fd and a generation ({@code generation << 32 | fd}); the table maps an
 * fd to its live socket, so an event still in the buffer for a socket closed since (its fd maybe reused) is dropped.
 */
final class EpollPoller {
    private static final int MAX_EVENTS = 512;
    private static final int SPINS = Integer.getInteger("floor.spins", 4);
    private static final ForkJoinPool SCHEDULER = scheduler();
    private static final int BLOCK_MILLIS = Integer.getInteger("floor.block", SCHEDULER == null ? 1 : -1);
    private static final AtomicInteger GENERATIONS = new AtomicInteger();

    private final Arena arena = Arena.ofShared();
    private final int epfd;
    private final AtomicReferenceArray<EpollSocket> byFd = new AtomicReferenceArray<>(1 << 20);

    EpollPoller() {
        MemorySegment errno = Epoll.errnoSegment(arena);
        epfd = Epoll.epollCreate(errno);
        if (epfd < 0) {
            throw new IllegalStateException("epoll_create1: errno " + Epoll.errno(errno));
        }
    }

    /** Starts the loop: a virtual thread by default, a platform thread with {@code -Dfloor.poller=platform}. */
    EpollPoller start() {
        if ("platform".equals(System.getProperty("floor.poller"))) {
            Thread.ofPlatform().daemon().name("epoll-poller").start(() -> loop(0, -1));
        } else {
            Thread.ofVirtual().name("epoll-poller").start(() -> loop(SPINS, BLOCK_MILLIS));
        }
        return this;
    }

    /** A new generation for a socket about to be registered. */
    static int nextGeneration() {
        return GENERATIONS.incrementAndGet();
    }

    /** Registers the socket once, for good; its first readiness comes as an event if it is ready already. */
    void register(EpollSocket socket, MemorySegment errno) {
        byFd.set(socket.fd, socket);
        try (Arena call = Arena.ofConfined()) {
            MemorySegment event = call.allocate(Epoll.EVENT_SIZE);
            Epoll.setEvent(event, Epoll.EPOLLIN | Epoll.EPOLLOUT | Epoll.EPOLLET | Epoll.EPOLLRDHUP,
                    (long) socket.generation << 32 | socket.fd);
            if (Epoll.epollCtl(errno, epfd, Epoll.EPOLL_CTL_ADD, socket.fd, event) < 0) {
                byFd.compareAndSet(socket.fd, socket, null);
                throw new IllegalStateException("epoll_ctl ADD: errno " + Epoll.errno(errno));
            }
        }
    }

    /** Forgets the socket before its fd is closed (the close takes it out of the epoll set). */
    void forget(EpollSocket socket) {
        byFd.compareAndSet(socket.fd, socket, null);
    }

    private void loop(int spins, int blockMillis) {
        MemorySegment errno = Epoll.errnoSegment(arena);
        MemorySegment events = arena.allocate(Epoll.EVENT_SIZE * MAX_EVENTS, 8);
        boolean virtual = Thread.currentThread().isVirtual();
        int empty = 0;
        while (true) {
            int timeout = empty < spins || queued() ? 0 : blockMillis;
            int n = Epoll.epollWait(errno, epfd, events, MAX_EVENTS, timeout);
            if (n < 0 && Epoll.errno(errno) != Epoll.EINTR) {
                throw new IllegalStateException("epoll_wait: errno " + Epoll.errno(errno));
            }
            for (int i = 0; i < n; i++) {
                long data = Epoll.eventData(events, i);
                EpollSocket socket = byFd.get((int) data);
                if (socket != null && socket.generation == (int) (data >>> 32)) {
                    socket.ready(Epoll.eventMask(events, i));
                }
            }
            empty = n > 0 ? 0 : empty + 1;
            if (virtual && (n > 0 || timeout == 0)) {
                Thread.yield(); // the readers just unparked run before the next poll
            }
        }
    }

    /** Whether virtual threads wait in the scheduler's queues (false for the platform poller, which pins nothing). */
    private static boolean queued() {
        return SCHEDULER != null && Thread.currentThread().isVirtual()
                && (SCHEDULER.getQueuedTaskCount() > 0 || SCHEDULER.getQueuedSubmissionCount() > 0);
    }

    private static ForkJoinPool scheduler() {
        try {
            Field field = Class.forName("java.lang.VirtualThread").getDeclaredField("DEFAULT_SCHEDULER");
            field.setAccessible(true);
            return (ForkJoinPool) field.get(null);
        } catch (ReflectiveOperationException | RuntimeException e) {
            System.err.println("epoll poller: no access to the virtual-thread scheduler (" + e
                    + "); blocking at most " + Integer.getInteger("floor.block", 1) + " ms");
            return null;
        }
    }
}
