package io.loomgate.server;

import io.loomgate.threads.ConnectionExecutors;
import io.loomgate.threads.NanoClock;
import java.io.IOException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Holds a listener's idle keep-alive connections without a thread each: one selector on one platform daemon thread.
 * A connection whose virtual thread found no next request within the hand-off delay is {@linkplain #park parked}
 * here and its thread ends; when bytes (or the client's FIN) arrive, the connection is fully deregistered, put back
 * in blocking mode and {@linkplain ClientConnection#run() run} again on a new thread from the listener's executor.
 *
 * <p>Why: a parked virtual thread keeps the stack chunk of its deepest park (about 5 KB here, measured with
 * {@code GC.class_histogram}), three quarters of an idle connection's memory. A selector key costs about 100 B.
 *
 * <p>While parked the poller owns the connection: its idle deadline (closed when it passes, swept every
 * {@link #SWEEP_NANOS}), drain ({@link #evict}) and the listener's end ({@link #close}) all close it here and
 * {@linkplain ClientConnection#endParked() end} it exactly once. Every change of the selector's keys happens on the
 * poller's thread; other threads only queue work and wake it.
 */
final class IdleConnections implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(IdleConnections.class);
    /** How often parked connections' idle deadlines are looked at: idle timeouts are kept within this. */
    static final long SWEEP_NANOS = 50_000_000L;

    private final Selector selector;
    private final Executor executor;
    private final ConnectionListener events;
    /** The clock of idle deadlines: the listener's read watchdog's, so tests can drive both alike. */
    private final NanoClock clock;
    private final ReentrantLock queueLock = new ReentrantLock();
    private final ArrayDeque<ClientConnection> arriving = new ArrayDeque<>();
    private final ArrayDeque<ClientConnection> evicted = new ArrayDeque<>();
    private final List<ClientConnection> ready = new ArrayList<>();
    private final Thread thread;
    private boolean closed; // guarded by queueLock
    private volatile int parked;
    /** Parks so far (written by the poller's thread only): what tests wait for when a park may be brief. */
    private volatile long parks;

    private IdleConnections(Selector selector, Executor executor, ConnectionListener events, NanoClock clock,
                            String name) {
        this.selector = selector;
        this.executor = executor;
        this.events = events;
        this.clock = clock;
        this.thread = ConnectionExecutors.startDaemon(name, this::loop);
    }

    /**
     * Opens the selector and starts its thread; resumed connections run on {@code executor}; idle deadlines are
     * instants of {@code clock}.
     */
    static IdleConnections start(String name, Executor executor, ConnectionListener events, NanoClock clock)
            throws IOException {
        return new IdleConnections(Selector.open(), executor, events, clock, name);
    }

    /**
     * Takes an idle connection whose channel is already non-blocking; false when the poller is closed (the caller
     * then ends the connection itself).
     */
    boolean park(ClientConnection c) {
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

    /** Drain: closes this connection if it is parked (or about to be); a connection resumed meanwhile is left alone. */
    void evict(ClientConnection c) {
        queueLock.lock();
        try {
            if (closed) {
                return;
            }
            evicted.add(c);
        } finally {
            queueLock.unlock();
        }
        selector.wakeup();
    }

    /** Connections parked now (registered with the selector). */
    int parked() {
        return parked;
    }

    /** How many times a connection was parked here, in all. */
    long parks() {
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
                // No parked connection: nothing to sweep, sleep until one arrives.
                long wait = selector.keys().isEmpty() ? 0 : Math.max(1, (nextSweep - System.nanoTime()) / 1_000_000);
                selector.select(wait);
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
        } catch (IOException | RuntimeException e) {
            log.error("idle-connection poller failed; closing its parked connections", e);
        } finally {
            shutDown();
        }
    }

    /** Registers arrivals and handles evictions; true once the poller is closed. */
    private boolean takeQueued() throws IOException {
        List<ClientConnection> in;
        List<ClientConnection> out;
        boolean stop;
        queueLock.lock();
        try {
            in = arriving.isEmpty() ? List.of() : new ArrayList<>(arriving);
            out = evicted.isEmpty() ? List.of() : new ArrayList<>(evicted);
            arriving.clear();
            evicted.clear();
            stop = closed;
        } finally {
            queueLock.unlock();
        }
        for (ClientConnection c : in) {
            if (c.isDraining()) {
                c.endParked();
                continue;
            }
            try {
                c.channel().register(selector, SelectionKey.OP_READ, c);
                parked++;
                parks++;
                events.connectionParked();
            } catch (ClosedChannelException e) {
                c.endParked(); // closed between its last read and here: end it once, here
            }
        }
        for (ClientConnection c : out) {
            SelectionKey key = c.channel().keyFor(selector);
            if (key != null && key.isValid()) {
                key.cancel();
                left();
                c.endParked();
            }
        }
        return stop;
    }

    /** Connections with bytes (or EOF) waiting go back to a thread of their own. */
    private void resumeReady() throws IOException {
        var selected = selector.selectedKeys();
        while (!selected.isEmpty()) {
            for (SelectionKey key : selected) {
                key.cancel();
                left();
                ready.add((ClientConnection) key.attachment());
            }
            selected.clear();
            // A cancelled key leaves the channel only at the selector's next selection; until then the channel
            // cannot go back to blocking mode. selectNow deregisters them (and may find more ready keys: looped).
            selector.selectNow();
            for (ClientConnection c : ready) {
                resume(c);
            }
            ready.clear();
        }
    }

    /** A key cancelled: one parked connection fewer. */
    private void left() {
        parked--;
        events.connectionUnparked();
    }

    private void resume(ClientConnection c) {
        try {
            c.channel().configureBlocking(true);
        } catch (IOException e) { // closed meanwhile (drain's abort): end it here, once
            c.endParked();
            return;
        }
        c.leavePoller();
        try {
            executor.execute(c);
        } catch (RejectedExecutionException e) { // the executor is shutting down: the listener is closing
            c.endParked();
        }
    }

    private void closeExpired(long now) throws IOException {
        boolean any = false;
        for (SelectionKey key : selector.keys()) {
            ClientConnection c = (ClientConnection) key.attachment();
            if (key.isValid() && now - c.parkedUntil() >= 0) {
                key.cancel();
                left();
                log.debug("{} idle too long while parked, closing", c);
                c.endParked();
                any = true;
            }
        }
        if (any) {
            selector.selectNow(); // release the closed channels' descriptors now, not at the next event
            resumeReady();
        }
    }

    private void shutDown() {
        queueLock.lock();
        try {
            closed = true;
        } finally {
            queueLock.unlock();
        }
        for (SelectionKey key : selector.keys()) {
            if (key.isValid()) {
                key.cancel();
                left();
                ((ClientConnection) key.attachment()).endParked();
            }
        }
        for (ClientConnection c : arriving) {
            c.endParked();
        }
        arriving.clear();
        evicted.clear();
        try {
            selector.close();
        } catch (IOException e) {
            log.debug("closing the idle-connection selector: {}", e.toString());
        }
    }
}
