package io.loomgate.server;

import io.loomgate.threads.ConnectionExecutors;
import io.loomgate.threads.NanoClock;
import io.loomgate.threads.Unexpected;
import java.io.IOException;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Holds a listener's idle keep-alive connections without a thread each: one selector on one platform daemon thread.
 * A connection whose virtual thread found no next request within the hand-off delay is {@linkplain #park parked}
 * here and its thread ends; when bytes (or the client's FIN) arrive, the connection is fully deregistered, put back
 * in blocking mode and {@linkplain ClientConnection#run() run} again on a new thread from the listener's executor.
 * What it holds is each connection's {@link ParkState}, whichever protocol the connection speaks.
 *
 * <p>Why: a parked virtual thread keeps the stack chunk of its deepest park (about 5 KB here, measured with
 * {@code GC.class_histogram}), three quarters of an idle connection's memory. A selector key costs about 100 B.
 *
 * <p>A storm of new connections: each new connection, after its first request, waits on its thread for the hand-off
 * delay before it parks, holding the stack chunk of its deepest park (the wait for the origin) meanwhile. At W3's
 * rate (10,000 connections opened 200 at a time) that was thousands of threads at once, which the burst's young
 * collections promoted into pages of the old generation that stay resident: 69-72 MiB promoted during W3, 21-33 MiB
 * with the permits (W3 by RSS 7.3-8.9 KB per connection before, 0.9-3.6 KB after; docs/performance.md). So
 * only {@link #NEW_CONNECTION_HANDOFFS} new connections wait so at once ({@link #startHandoff}); the others park at
 * once (a client that sends its next request soon is resumed at once, one park and one resumption more).
 *
 * <p>While parked the poller owns the connection: its idle deadline (closed when it passes, swept every
 * {@link #SWEEP_NANOS}), drain ({@link #evict}) and the listener's end ({@link #close}) all close it here and
 * {@linkplain ParkState#end() end} it exactly once. Every change of the selector's keys happens on the
 * poller's thread; other threads only queue work and wake it.
 */
final class IdleConnections implements IdlePoller {
    private static final Logger log = LoggerFactory.getLogger(IdleConnections.class);
    /** How often parked connections' idle deadlines are looked at: idle timeouts are kept within this. */
    static final long SWEEP_NANOS = 50_000_000L;
    /** How many new connections may wait for the hand-off delay on their own thread at once (see the class). */
    static final int NEW_CONNECTION_HANDOFFS = 128;

    private final Selector selector;
    private final Executor executor;
    private final ConnectionListener events;
    /** The clock of idle deadlines: the listener's read watchdog's, so tests can drive both alike. */
    private final NanoClock clock;
    private final ReentrantLock queueLock = new ReentrantLock();
    /** Permits for new connections' hand-off waits on their own thread (see the class). */
    private final Semaphore newConnectionHandoffs;
    private final ArrayDeque<ParkState> arriving = new ArrayDeque<>();
    private final ArrayDeque<ParkState> evicted = new ArrayDeque<>();
    private final ArrayDeque<ParkState> evictedHard = new ArrayDeque<>();
    private final Thread thread;
    private boolean closed; // guarded by queueLock
    private volatile int parked;
    /** Parks so far (written by the poller's thread only): what tests wait for when a park may be brief. */
    private volatile long parks;

    private IdleConnections(Selector selector, Executor executor, ConnectionListener events, NanoClock clock,
                            String name, int newConnectionHandoffs) {
        this.selector = selector;
        this.executor = executor;
        this.events = events;
        this.clock = clock;
        this.newConnectionHandoffs = new Semaphore(newConnectionHandoffs);
        this.thread = ConnectionExecutors.startDaemon(name, this::loop);
    }

    /**
     * Opens the selector and starts its thread; resumed connections run on {@code executor}; idle deadlines are
     * instants of {@code clock}; at most {@code newConnectionHandoffs} new connections wait for the hand-off delay
     * on their own thread at once.
     */
    static IdleConnections start(String name, Executor executor, ConnectionListener events, NanoClock clock,
                                 int newConnectionHandoffs) throws IOException {
        return new IdleConnections(Selector.open(), executor, events, clock, name, newConnectionHandoffs);
    }

    /**
     * A new connection asks to wait for the hand-off delay on its own thread after its first request: false when
     * {@link #NEW_CONNECTION_HANDOFFS} (or the listener's number) already do, and then it parks at once. A true
     * answer is followed by one {@link #endHandoff()}.
     */
    @Override
    public boolean startHandoff() {
        return newConnectionHandoffs.tryAcquire();
    }

    /** A new connection's hand-off wait ended (bytes came, it parks, or it failed). */
    @Override
    public void endHandoff() {
        newConnectionHandoffs.release();
    }

    /** A socket accepted as a channel (the listener's sockets on the JDK transport). */
    @Override
    public boolean canPark(Socket raw) {
        return raw.getChannel() != null;
    }

    /**
     * Takes an idle connection, putting its channel in non-blocking mode; false when the poller is closed (the caller
     * then ends the connection itself).
     */
    @Override
    public boolean park(ParkState c) throws IOException {
        c.channel().configureBlocking(false);
        queueLock.lock();
        try {
            if (closed) {
                return false;
            }
            arriving.add(c);
        } finally {
            queueLock.unlock();
        }
        selector.wakeup();
        return true;
    }

    /**
     * Drain: ends this connection if it is parked (or about to be). A connection resumed meanwhile is left to finish
     * its request, unless {@code hard} (drain's timeout, an abort): then its socket is closed as abort would have.
     */
    @Override
    public void evict(ParkState c, boolean hard) {
        queueLock.lock();
        try {
            if (closed) {
                if (hard) {
                    c.close(); // nothing is registered any more: closing the channel here is safe
                }
                return;
            }
            (hard ? evictedHard : evicted).add(c);
        } finally {
            queueLock.unlock();
        }
        selector.wakeup();
    }

    /** Into the empty send buffer of a channel in non-blocking mode: never blocks the poller. */
    @Override
    public void sendWhileParked(Socket raw, byte[] bytes) throws IOException {
        raw.getChannel().write(ByteBuffer.wrap(bytes));
    }

    /** Connections parked now (registered with the selector). */
    @Override
    public int parked() {
        return parked;
    }

    /** How many times a connection was parked here, in all. */
    @Override
    public long parks() {
        return parks;
    }

    /** Closes every parked connection and stops the thread; connections parking later are refused. */
    @Override
    public void close() {
        queueLock.lock();
        try {
            closed = true;
        } finally {
            queueLock.unlock();
        }
        selector.wakeup();
        try {
            thread.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void loop() {
        long nextSweep = System.nanoTime() + SWEEP_NANOS;
        try {
            while (true) {
                if (hasQueued()) {
                    // Work queued while this thread was busy: its wakeup may already be spent (selectNow, below
                    // and in closeExpired, clears a pending wakeup), so never block on it. This check is what
                    // makes a lost wakeup impossible: a park or eviction queued after it wakes the select below.
                    selector.selectNow();
                } else {
                    // No parked connection: nothing to sweep, sleep until one arrives (its wakeup ends the select).
                    long wait = selector.keys().isEmpty() ? 0
                            : Math.max(1, (nextSweep - System.nanoTime()) / 1_000_000);
                    selector.select(wait);
                }
                if (takeQueued()) {
                    break;
                }
                resumeReady();
                long now = System.nanoTime();
                if (now - nextSweep >= 0) {
                    closeExpired(clock.nanoTime());
                    nextSweep = now + SWEEP_NANOS;
                }
            }
        } catch (Throwable e) { // even an Error: shutDown below still ends every connection this poller holds
            Unexpected.LOG.error("idle-connection poller failed; ending its parked connections", e);
        } finally {
            shutDown();
        }
    }

    /** Whether parks, evictions or the close wait to be taken. */
    private boolean hasQueued() {
        queueLock.lock();
        try {
            return closed || !arriving.isEmpty() || !evicted.isEmpty() || !evictedHard.isEmpty();
        } finally {
            queueLock.unlock();
        }
    }

    /** Registers arrivals and handles evictions; true once the poller is closed. */
    private boolean takeQueued() {
        List<ParkState> in;
        List<ParkState> out;
        List<ParkState> outHard;
        boolean stop;
        queueLock.lock();
        try {
            in = drainQueue(arriving);
            out = drainQueue(evicted);
            outHard = drainQueue(evictedHard);
            stop = closed;
        } finally {
            queueLock.unlock();
        }
        for (ParkState c : in) {
            register(c);
        }
        for (ParkState c : out) {
            end(c); // not parked any more (resumed meanwhile, or ended): left alone
        }
        for (ParkState c : outHard) {
            if (!end(c)) {
                c.close(); // resumed meanwhile: abort closes its socket, its own thread ends it
            }
        }
        return stop;
    }

    private static List<ParkState> drainQueue(ArrayDeque<ParkState> q) {
        if (q.isEmpty()) {
            return List.of();
        }
        List<ParkState> all = new ArrayList<>(q);
        q.clear();
        return all;
    }

    /** Registers an arrival for reads; a connection that cannot be registered is ended here, once. */
    private void register(ParkState c) {
        if (!c.isParked()) {
            return; // evicted before it arrived here: already ended by whoever took it
        }
        if (c.isDraining()) {
            end(c);
            return;
        }
        try {
            c.key = c.channel().register(selector, SelectionKey.OP_READ, c);
        } catch (Throwable e) { // closed meanwhile, or anything unforeseen: never left neither parked nor ended
            if (!(e instanceof ClosedChannelException)) {
                log.warn("{}: could not be parked, closing it: {}", c, e.toString());
            }
            end(c);
            return;
        }
        parked++;
        parks++;
        events.connectionParked();
    }

    /**
     * Takes a parked connection off the selector to end it: false when it was not parked any more (another path took
     * it first). Failures are contained: the connection's bookkeeping end still runs.
     */
    private boolean end(ParkState c) {
        if (!takeOff(c, ParkState.CLOSING)) {
            return false;
        }
        endContained(c);
        return true;
    }

    /** Ends a connection taken off the selector; a failure is logged, never thrown into the poller's loop. */
    private static void endContained(ParkState c) {
        try {
            c.end();
        } catch (Throwable e) {
            log.warn("{}: failed while ending it: {}", c, e.toString());
        }
    }

    /**
     * The one way off the selector: wins the connection's park state (exactly one party does) and, if it was
     * registered, cancels its key and counts it out once.
     */
    private boolean takeOff(ParkState c, int next) {
        if (!c.takeOff(next)) {
            return false;
        }
        SelectionKey key = c.key;
        if (key != null) {
            c.key = null;
            key.cancel();
            left();
        }
        return true;
    }

    /** Connections with bytes (or EOF) waiting go back to a thread of their own. */
    private void resumeReady() throws IOException {
        var selected = selector.selectedKeys();
        while (!selected.isEmpty()) {
            List<ParkState> ready = new ArrayList<>(selected.size());
            try {
                for (SelectionKey key : selected) {
                    ParkState c = (ParkState) key.attachment();
                    if (takeOff(c, ParkState.RESUMING)) {
                        ready.add(c);
                    }
                }
                selected.clear();
                // A cancelled key leaves the channel only at the selector's next selection; selectNow deregisters
                // them now (so a connection parking again registers afresh) and may find more ready keys: looped.
                selector.selectNow();
            } finally {
                // Each taken off the selector is resumed or ended, whatever failed above.
                for (ParkState c : ready) {
                    resume(c);
                }
            }
        }
    }

    /** A key cancelled: one parked connection fewer. */
    private void left() {
        parked--;
        events.connectionUnparked();
    }

    /** Runs a {@link ParkState#RESUMING} connection on a new thread, or ends it if that fails in any way. */
    private void resume(ParkState c) {
        try {
            c.channel().configureBlocking(true);
            c.leavePoller();
            executor.execute(c.connection());
            return;
        } catch (ClosedChannelException | RejectedExecutionException e) {
            // closed meanwhile (drain's abort), or the executor is shutting down with the listener
            log.debug("{}: not resumed: {}", c, e.toString());
        } catch (Throwable e) {
            log.warn("{}: could not be resumed, closing it: {}", c, e.toString());
        }
        endContained(c);
    }

    private void closeExpired(long now) throws IOException {
        boolean any = false;
        // Cancelling keys while iterating is safe: cancelled keys leave the key set only at the next selection.
        for (SelectionKey key : selector.keys()) {
            ParkState c = (ParkState) key.attachment();
            if (now - c.parkedUntil() >= 0 && end(c)) {
                log.debug("{} idle too long while parked, closed", c);
                any = true;
            }
        }
        if (any) {
            selector.selectNow(); // release the closed channels' descriptors now, not at the next event
            resumeReady();
        }
    }

    /** The poller's end: every connection it holds (registered, queued, being resumed) is ended, once each. */
    private void shutDown() {
        List<ParkState> queued;
        queueLock.lock();
        try {
            closed = true;
            queued = new ArrayList<>(arriving);
            queued.addAll(evicted);
            queued.addAll(evictedHard);
            arriving.clear();
            evicted.clear();
            evictedHard.clear();
        } finally {
            queueLock.unlock();
        }
        List<SelectionKey> keys;
        try {
            keys = List.copyOf(selector.keys());
        } catch (Throwable e) {
            keys = List.of();
            Unexpected.LOG.error("idle-connection poller: its keys are unreadable", e);
        }
        for (SelectionKey key : keys) {
            end((ParkState) key.attachment());
        }
        for (ParkState c : queued) {
            end(c);
        }
        try {
            selector.close();
        } catch (IOException e) {
            log.debug("closing the idle-connection selector: {}", e.toString());
        }
    }
}
