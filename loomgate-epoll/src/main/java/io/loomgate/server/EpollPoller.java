package io.loomgate.server;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;
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
 * <p>Why two loops, and why nothing waits behind the poller. The busy loop runs as a virtual thread (as the JDK's own
 * {@code jdk.pollerMode=2} poller does), so unparking a reader queues it on the poller's carrier and needs no futex:
 * it polls with timeout 0 and yields between polls while other virtual threads are queued. A virtual thread blocked in
 * a foreign call pins its carrier, and the prototype (bench/floor-epoll) showed a poller blocked in {@code epoll_wait}
 * stalling every virtual thread queued behind it; so the busy loop blocks in {@code epoll_wait} only when the
 * scheduler has nothing queued ({@link VirtualThreadScheduler#nothingQueued}), and then for at most
 * {@link #BLOCK_MILLIS}: the carrier sleeps in the kernel until the next event, as HAProxy's thread does, and is woken
 * by it directly, with no futex and no other thread. What that bound is for: a platform thread that makes a virtual
 * thread runnable meanwhile (a timer's expiry, the watchdog's cut) finds no free carrier when the scheduler has one
 * (parallelism 1), and waits up to that long. When a bounded wait ends with nothing, it hands the waiting to the idle
 * loop, a platform thread that blocks in {@code epoll_wait} with no timeout, dispatches what wakes it, and hands the
 * polling back, so an idle gateway neither spins nor holds a carrier; that turn costs a futex each way, which is why
 * it is kept for pauses longer than the bound. It also hands over after {@link #SPINS} empty polls in a row (threads
 * queued, no events: the carrier has work without the poller), and after {@link #STARVED_ROUNDS} rounds in a row in
 * which threads submitted from outside the carriers waited: a yielding virtual thread is run again before the carrier
 * looks at the pool's submission queues (ForkJoinPool keeps taking from the queue it took from last), so yielding alone
 * would starve them. Where the scheduler cannot be found (or {@code BLOCK_MILLIS} is 0) the loop never blocks on a
 * carrier and hands over after {@code SPINS} empty polls, as before. (Counting the starved rounds without blocking
 * was tried in session 53 and dropped: the HTTP/1.1 reader's yield before a read that would wait resubmits it from
 * outside the carrier's queue when that queue is empty, so submissions wait in most rounds under load and the loop
 * with 16 spins handed over as often as with 4.) While the busy loop runs, the idle loop watches
 * it and polls in its place when it has waited too long for a carrier ({@link #WATCH_MILLIS}), so no reader's wake-up
 * waits for the poller's own turn.
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
    /**
     * Empty polls in a row before the busy loop hands over to the idle loop, when it does not block on its carrier
     * (the prototype: 0, 4, 32 all alike). 16 was measured in session 53 (docs/journal/2026-12-01-s53-epollwake.md):
     * a hand-over costs three to four futex calls and about three thread switches, an empty poll one
     * {@code epoll_wait} that returns at once and a yield, and at W2 (50 connections) 16 cut the hand-overs from
     * 0.20-0.39 to 0.11-0.16 per request (futex 0.83-1.39 to 0.45-0.66) for 2.7-4 more empty polls; but the CPU per
     * request did not follow (lower in 3 of 4 pairs of one jar, higher in 3 of 3 pairs of the built jars, on a
     * machine loaded 20-40), and session 45 saw no gain at W8 either. So it stays 4.
     */
    static final int SPINS = Integer.getInteger("loomgate.epoll.spins", 4);
    /**
     * When the loop may block on its carrier: rounds in a row with threads waiting in the scheduler's submission
     * queues before it hands over so that they run (see the class comment). A number of its own since session 53
     * (before, it was {@link #SPINS}), so that a longer spin ({@code -Dloomgate.epoll.spins}) does not keep a thread
     * made runnable by a platform thread (a timer, the watchdog, the idle loop) waiting as many more rounds.
     */
    static final int STARVED_ROUNDS = 4;
    /**
     * The longest the busy loop blocks in {@code epoll_wait} on its carrier, nothing else queued, before it hands
     * over to the idle loop (milliseconds; 0: never blocks on a carrier). Also the longest a virtual thread made
     * runnable by a platform thread may wait for the carrier when the scheduler has one. Off (0) by default: on a
     * core of its own it cuts the CPU per W2 request by a quarter and the futex calls to almost none, but a carrier
     * that sleeps on every event waits in the kernel's run queue each time it is woken, and where other processes
     * share its core that served 2-4 times fewer requests per second at 4 connections than the hand-over, whose
     * carrier stays runnable (docs/architecture.md, "Why the busy loop does not sleep on its carrier by default").
     */
    static final int BLOCK_MILLIS;
    /**
     * {@code loomgate.epoll.block-millis=auto}: block (for at most 1 ms) while trials say blocking keeps up with the
     * hand-over's rate of events ({@link BlockTrial}); hand over while it does not.
     */
    static final boolean BLOCK_AUTO;

    static {
        String block = System.getProperty("loomgate.epoll.block-millis", "0").trim();
        BLOCK_AUTO = block.equalsIgnoreCase("auto");
        int millis = 0;
        if (BLOCK_AUTO) {
            millis = 1;
        } else {
            try {
                millis = Math.max(0, Integer.parseInt(block));
            } catch (NumberFormatException e) {
                LoggerFactory.getLogger(EpollPoller.class).warn(
                        "loomgate.epoll.block-millis={}: neither milliseconds nor 'auto'; the poller never blocks on a"
                                + " carrier", block);
            }
        }
        BLOCK_MILLIS = millis;
    }

    /**
     * How long the busy loop may go without polling (beyond its own bound) before the idle loop stands in for it
     * (milliseconds). The busy loop is a virtual thread: when no carrier is free for it (a CPU-starved process, or a
     * carrier that keeps draining one submission queue another thread keeps filling) it waits in the scheduler's
     * queues, and without a stand-in every reader's wake-up waited for the poller's own turn (EpollFuzzTest on a
     * loaded machine: the busy loop went 10-20 s without a turn, in both modes, and connections timed out after 30 s).
     * Long enough that a busy loop which only yields to the threads it woke is never stood in for.
     */
    static final int WATCH_MILLIS = 25;
    private static final int MAX_EVENTS = 256;
    private static final AtomicInteger GENERATIONS = new AtomicInteger();

    private final Arena arena = Arena.ofShared();
    private final int epfd;
    private final ReentrantLock tableLock = new ReentrantLock();
    /** Registrations by fd; replaced by a larger copy under the lock, read without it. */
    private volatile AtomicReferenceArray<EpollFd> table = new AtomicReferenceArray<>(1024);
    /** True while the idle loop owns the waiting (the busy loop is parked). */
    private volatile boolean idle;
    /**
     * When the busy loop last showed it polls ({@link System#nanoTime()}): each turn of its loop, and the idle loop's
     * wake-up of it (its time to get a carrier starts then). The idle loop's watch reads it.
     */
    private volatile long busyMark;
    private final AtomicInteger standIns = new AtomicInteger();
    private final Thread busyLoop;
    private final Thread idleLoop;
    private final AtomicInteger handoffs = new AtomicInteger();
    private final int spins;
    private final int blockMillis;
    /** Whether the busy loop found the scheduler it asks before blocking (known once it has started). */
    private volatile Boolean blocksOnCarrier;

    /** With {@code auto}: whether blocking pays now, tried on the live load; false: block whenever quiet. */
    private final boolean auto;
    /** Null until the busy loop has started, and without {@code auto}. */
    private volatile BlockTrial trial;
    /** Events dispatched by each loop (one writer each), for the trials. */
    private long busyEvents;
    private volatile long idleEvents;

    private EpollPoller() {
        this(SPINS, BLOCK_MILLIS, BLOCK_AUTO);
    }

    /** A poller of its own, with its own settings (tests; the gateway has one, {@link #shared()}). */
    EpollPoller(int spins, int blockMillis) {
        this(spins, blockMillis, false);
    }

    /** {@code auto}: block only while trials on the live load say it keeps up ({@link BlockTrial}; tests). */
    EpollPoller(int spins, int blockMillis, boolean auto) {
        this.spins = spins;
        this.blockMillis = blockMillis;
        this.auto = auto;
        MemorySegment errno = Libc.errnoSegment();
        epfd = Libc.epollCreate(errno);
        if (epfd < 0) {
            throw new IllegalStateException("epoll_create1: " + Libc.describe(Libc.errno(errno)));
        }
        busyMark = System.nanoTime(); // the busy loop's time to get a carrier starts now
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

    /** How often the idle loop has stood in for a busy loop that waited too long for a carrier (tests, diagnostics). */
    int standIns() {
        return standIns.get();
    }

    /** With {@code auto}: its trials of blocking against handing over (tests, diagnostics); null otherwise. */
    BlockTrial trial() {
        return trial;
    }

    /** Whether the busy loop blocks on its carrier when nothing is queued; null until it has started (tests). */
    Boolean blocksOnCarrier() {
        return blocksOnCarrier;
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
        VirtualThreadScheduler scheduler = blockMillis > 0 ? VirtualThreadScheduler.find() : null;
        blocksOnCarrier = scheduler != null;
        if (scheduler == null && blockMillis > 0) {
            log.info("epoll: the virtual threads' scheduler was not found; the poller never blocks on a carrier");
        }
        BlockTrial judge = auto && scheduler != null ? new BlockTrial(() -> busyEvents + idleEvents, System.nanoTime())
                : null;
        trial = judge;
        int empty = 0;
        int starved = 0;
        while (true) {
            long now = System.nanoTime();
            busyMark = now;
            boolean submitted = scheduler != null && scheduler.submissionsWaiting();
            // With auto, blocking only while the last trial said it keeps up; else this turn is the hand-over's
            boolean quiet = scheduler != null && !submitted && scheduler.carrierQueuesEmpty()
                    && (judge == null || judge.mayBlock(now));
            // Nothing queued: sleep in the kernel until an event, on this carrier (epoll_wait returns at once when one
            // is there already). Else one look without waiting, and the queued threads run first.
            int n = poll(errno, events, quiet ? blockMillis : 0);
            busyEvents += n;
            empty = n > 0 ? 0 : empty + 1;
            starved = submitted ? starved + 1 : 0;
            // Hand the waiting over (and park, so the carrier is free): after a bounded wait that saw nothing; after
            // that many polls in a row that found nothing; and when threads submitted from outside the carriers have
            // waited that many rounds, because a yield lets only the carrier's own queue run before this loop again.
            if (quiet && n == 0 || empty >= spins || starved >= STARVED_ROUNDS) {
                empty = 0;
                starved = 0;
                handOff();
            } else {
                Thread.yield(); // the readers just unparked (and everyone else queued) run before the next poll
            }
        }
    }

    /** Parks the busy loop until the idle loop's blocking wait has seen an event (and dispatched it). */
    private void handOff() {
        handoffs.incrementAndGet();
        idle = true;
        LockSupport.unpark(idleLoop);
        while (idle) {
            LockSupport.park(this);
        }
    }

    /**
     * Owns the waiting while the busy loop is parked (blocks in {@code epoll_wait} until an event, then wakes it), and
     * otherwise watches it: a busy loop that has not polled for {@link #WATCH_MILLIS} past its own bound is waiting
     * for a carrier, and the idle loop polls and dispatches in its place until it polls again (events dispatched
     * here unpark their readers from a platform thread, as the hand-over does). The watch is a timed park while the
     * busy loop runs (at most 40 wake-ups a second, none while the gateway is idle: the busy loop has handed over
     * then); two threads may poll at once for a moment, which the kernel allows (each event goes to one of them) and
     * {@link EpollFd#ready} tolerates (flags and unparks).
     */
    private void idleLoop() {
        MemorySegment errno = Libc.errnoSegment(arena);
        MemorySegment events = arena.allocate(Libc.EVENT_SIZE * MAX_EVENTS, 8);
        long watchNanos = TimeUnit.MILLISECONDS.toNanos(WATCH_MILLIS);
        long staleNanos = watchNanos + TimeUnit.MILLISECONDS.toNanos(blockMillis);
        while (true) {
            if (idle) {
                int n = poll(errno, events, -1);
                idleEvents += n; // its one writer
                if (n > 0) {
                    busyMark = System.nanoTime();
                    idle = false;
                    LockSupport.unpark(busyLoop);
                }
            } else if (System.nanoTime() - busyMark > staleNanos) {
                standIns.incrementAndGet();
                idleEvents += poll(errno, events, WATCH_MILLIS); // until the busy loop polls again (or hands over)
            } else {
                LockSupport.parkNanos(this, watchNanos); // a hand-over's unpark ends it early
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
