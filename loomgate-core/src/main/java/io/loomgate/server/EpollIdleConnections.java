package io.loomgate.server;

import io.loomgate.threads.ConnectionExecutors;
import io.loomgate.threads.NanoClock;
import java.io.IOException;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A listener's idle keep-alive connections on {@code transport: epoll}, held without a thread each: the epoll poller
 * already watches every socket for reads, so a parked connection is only a "when readable, resume" callback on its
 * registration ({@link EpollSupport#whenReadable}); bytes or the client's FIN run it on the poller's thread, which
 * takes the connection off ({@link ParkState#takeOff}) and runs it again on a new thread from the listener's
 * executor. No selector, no registration to undo.
 *
 * <p>While parked this owns the connection as {@link IdleConnections} does: its idle deadline (a sweeper thread looks
 * every {@link IdleConnections#SWEEP_NANOS} while anything is parked, and sleeps while nothing is), drain's eviction
 * and the listener's end; each path takes the connection with the park state's one compare-and-set, so a connection
 * both readable and expired is resumed or ended, once. A callback that fires for a connection taken since finds it
 * not parked and does nothing.
 *
 * <p>New connections' hand-off waits are bounded as on the JDK's sockets ({@link IdleConnections#startHandoff}, which
 * says why): without the bound, each of a burst of new connections waited on its thread for the hand-off delay, its
 * thread and stack held by the scheduler's timer, and the burst's young collections promoted them (W3 in the image:
 * 4.7-5.7 KB of RSS per held connection against 1.6 on the JDK's sockets; session 49).
 */
final class EpollIdleConnections implements IdlePoller {
    private static final Logger log = LoggerFactory.getLogger(EpollIdleConnections.class);

    private final EpollSupport epoll;
    private final Executor executor;
    private final ConnectionListener events;
    /** The clock of idle deadlines: the listener's read watchdog's. */
    private final NanoClock clock;
    /** The connections parked now (or being parked): what the sweeper and the end look at. */
    private final Set<ParkState> held = ConcurrentHashMap.newKeySet();
    private final AtomicInteger parked = new AtomicInteger();
    private final LongAdder parks = new LongAdder();
    private final Thread sweeper;
    /** The new connections that may wait for the hand-off delay on their own thread at once. */
    private final Semaphore newConnectionHandoffs;
    private volatile boolean closed;
    /** The sweeper sleeps with no timeout (nothing parked): the next park must wake it. */
    private volatile boolean sweeperAsleep;

    private EpollIdleConnections(String name, EpollSupport epoll, Executor executor, ConnectionListener events,
                                 NanoClock clock, int newConnectionHandoffs) {
        this.epoll = epoll;
        this.executor = executor;
        this.events = events;
        this.clock = clock;
        this.newConnectionHandoffs = new Semaphore(newConnectionHandoffs);
        this.sweeper = ConnectionExecutors.startDaemon(name, this::sweep);
    }

    /**
     * Starts the sweeper; resumed connections run on {@code executor}; idle deadlines are instants of {@code clock};
     * at most {@code newConnectionHandoffs} new connections wait for the hand-off delay on their thread at once.
     */
    static EpollIdleConnections start(String name, EpollSupport epoll, Executor executor, ConnectionListener events,
                                      NanoClock clock, int newConnectionHandoffs) {
        return new EpollIdleConnections(name, epoll, executor, events, clock, newConnectionHandoffs);
    }

    @Override
    public boolean startHandoff() {
        return newConnectionHandoffs.tryAcquire();
    }

    @Override
    public void endHandoff() {
        newConnectionHandoffs.release();
    }

    /** Every accepted socket of an epoll listener: the poller watches them all. */
    @Override
    public boolean canPark(Socket raw) {
        return true;
    }

    @Override
    public boolean park(ParkState c) {
        if (closed) {
            return false;
        }
        held.add(c);
        parked.incrementAndGet();
        parks.increment();
        events.connectionParked();
        if (sweeperAsleep) {
            LockSupport.unpark(sweeper); // it sleeps while nothing is parked
        }
        if (closed || !c.isParked()) {
            // The listener closed as this one arrived (its end may not have seen it), or drain took it already: who
            // takes it ends it; the count is undone once, by whoever removes it.
            if (takeOff(c, ParkState.CLOSING)) {
                endContained(c);
            } else {
                forget(c); // taken before it was held: nobody else removes it
            }
            return true;
        }
        // From here the poller's thread may resume it at once (or this thread, when bytes came already).
        epoll.whenReadable(c.socket(), () -> ready(c));
        return true;
    }

    /** The poller's callback: bytes, FIN or an error on a parked connection. */
    private void ready(ParkState c) {
        if (!takeOff(c, ParkState.RESUMING)) {
            return; // ended meanwhile (idle timeout, drain, the listener's end)
        }
        try {
            c.leavePoller();
            executor.execute(c.connection());
            return;
        } catch (RejectedExecutionException e) {
            log.debug("{}: not resumed: {}", c, e.toString()); // the executor is shutting down with the listener
        } catch (Throwable e) {
            log.warn("{}: could not be resumed, closing it: {}", c, e.toString());
        }
        endContained(c);
    }

    @Override
    public void evict(ParkState c, boolean hard) {
        if (takeOff(c, ParkState.CLOSING)) {
            endContained(c);
        } else if (hard) {
            c.close(); // resumed meanwhile: abort closes its socket, its own thread ends it
        }
    }

    /** One write that never waits (the GOAWAY of a parked HTTP/2 connection as it ends). */
    @Override
    public void sendWhileParked(Socket raw, byte[] bytes) throws IOException {
        epoll.writeNow(raw, bytes);
    }

    @Override
    public int parked() {
        return parked.get();
    }

    @Override
    public long parks() {
        return parks.sum();
    }

    /** Ends every parked connection, once each, and stops the sweeper; later parks are refused. */
    @Override
    public void close() {
        closed = true;
        LockSupport.unpark(sweeper);
        try {
            sweeper.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        endAll(); // again, should the sweeper have stopped early
    }

    /**
     * The one way off: wins the connection's park state (exactly one party does) and counts it out once. The
     * readiness callback stays registered; run later, it finds the connection not parked.
     */
    private boolean takeOff(ParkState c, int next) {
        if (!c.takeOff(next)) {
            return false;
        }
        forget(c);
        return true;
    }

    /** Counts a held connection out, once (whoever removes it). */
    private void forget(ParkState c) {
        if (held.remove(c)) {
            parked.decrementAndGet();
            events.connectionUnparked();
        }
    }

    /** Closes parked connections whose idle timeout passed, until closed; then ends the rest. */
    private void sweep() {
        try {
            while (!closed) {
                if (held.isEmpty()) {
                    // Asleep first, then look again: a park adds, then looks at this; one of the two sees the other.
                    sweeperAsleep = true;
                    if (held.isEmpty() && !closed) {
                        LockSupport.park(this); // a park's arrival or the close wakes it
                    }
                    sweeperAsleep = false;
                } else {
                    LockSupport.parkNanos(this, IdleConnections.SWEEP_NANOS);
                }
                long now = clock.nanoTime();
                for (ParkState c : held) {
                    if (now - c.parkedUntil() >= 0 && takeOff(c, ParkState.CLOSING)) {
                        log.debug("{} idle too long while parked, closed", c);
                        endContained(c);
                    }
                }
            }
        } catch (Throwable e) { // even an Error: endAll still ends every connection held
            log.error("idle-connection sweeper failed; ending its parked connections", e);
            closed = true;
        } finally {
            endAll();
        }
    }

    private void endAll() {
        for (ParkState c : held) {
            if (takeOff(c, ParkState.CLOSING)) {
                endContained(c);
            }
        }
    }

    /** Ends a connection taken off; a failure is logged, never thrown into the poller's or the sweeper's loop. */
    private static void endContained(ParkState c) {
        try {
            c.end();
        } catch (Throwable e) {
            log.warn("{}: failed while ending it: {}", c, e.toString());
        }
    }
}
