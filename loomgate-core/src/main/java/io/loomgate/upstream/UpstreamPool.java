package io.loomgate.upstream;

import io.loomgate.upstream.PooledConnection.State;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;

/**
 * Answers "which connections can be reused": the connections to one endpoint, shared by every upstream naming it.
 * Thread-safe.
 *
 * <p>Contract: {@link #acquire} lends a connection (a healthy idle one, or a new one) and says whether it was
 * {@linkplain PooledConnection#reused() reused}; the borrower gives it back exactly once, with {@link #release} if
 * its last exchange ended cleanly, otherwise with {@link #discard}.
 *
 * <p>Invariant, under {@code lock}: {@code idle.size() + inUse + dialling <= maxConnections}, where a slot is
 * reserved ({@code dialling}) before the dial starts and freed if it fails. Waiters are served in arrival order
 * ({@link WaiterQueue}); the last dial in flight to fail with no connection in use or idle fails them with it
 * ({@link WaiterFailure}) rather than handing its slot on; while other dials are in flight they wait for those.
 * Idle connections are kept most recently used first: reuse takes the warmest one and lets the rest age out at
 * the tail, where {@link #cleanup} finds the oldest. The lock is never held across I/O: dialling, closing sockets and the health check
 * ({@link PooledConnection#isHealthy}) all happen after it is released, so a slow origin never blocks other threads using the pool.
 */
public final class UpstreamPool {
    /**
     * How long a connection must have been idle before acquire spends a timed read on checking that the origin has
     * not closed it. The read costs a full millisecond of latency on every reuse, so (as OkHttp does) only
     * connections that sat long enough for an origin's keep-alive timeout to be plausible get it; a recently used
     * connection that the origin closed anyway fails on first use and the proxy retries on a fresh one.
     */

    private final Endpoint endpoint;
    private final PoolSettings settings;
    private final Connector connector;
    private final PoolListener listener;
    private final LongSupplier nanoTime;
    private final long idleTimeoutNanos;
    private final EndpointState state;
    /** The endpoint's HTTP/2 connections when it speaks HTTP/2 ({@link Endpoint#http2()}), else null. */
    private final Http2Pool http2;

    private final ReentrantLock lock = new ReentrantLock();
    // Guarded by lock. Head = most recently released.
    private final ArrayDeque<PooledConnection> idle = new ArrayDeque<>();
    /** Acquirers waiting for a connection or a slot, oldest first. */
    private final WaiterQueue<PooledConnection> waiters = new WaiterQueue<>(lock);
    private int inUse;
    private int dialling;
    private boolean closed;
    private boolean draining; // guarded by lock: released connections are closed, not kept

    private final AtomicLong nextId = new AtomicLong();
    private final LongAdder connects = new LongAdder();
    private final LongAdder reuses = new LongAdder();
    /** The listener's action for a reuse of this endpoint's connections, found once (see PoolListener). */
    private final Runnable onReuse;

    UpstreamPool(Endpoint endpoint, PoolSettings settings, PoolListener listener) {
        this(new Connector(endpoint, settings, listener), settings, listener, System::nanoTime);
    }

    /**
     * @param nanoTime the clock that ages idle connections (tests step it); waiting for a slot always uses
     *                 {@link System#nanoTime()}, the clock of acquire's deadline
     */
    UpstreamPool(Connector connector, PoolSettings settings, PoolListener listener, LongSupplier nanoTime) {
        this.endpoint = connector.endpoint();
        this.settings = settings;
        this.connector = connector;
        this.listener = listener;
        this.onReuse = listener.reuseAction(endpoint);
        this.nanoTime = nanoTime;
        this.idleTimeoutNanos = settings.idleTimeout().toNanos();
        this.state = new EndpointState(endpoint);
        this.http2 = endpoint.http2() ? new Http2Pool(endpoint, settings, connector, listener, this::adopt) : null;
    }

    /**
     * The endpoint's HTTP/2 connections, null when it speaks HTTP/1.1. Attempts lease streams there first; this
     * pool's HTTP/1.1 connections serve an https origin that chose HTTP/1.1 by ALPN ({@link Http2Pool#acquire}
     * answers null then).
     */
    public Http2Pool http2() {
        return http2;
    }

    public Endpoint endpoint() {
        return endpoint;
    }

    public PoolSettings settings() {
        return settings;
    }

    /** The endpoint's shared state (attempts in flight), which balancers read; the pool itself does not use it. */
    public EndpointState state() {
        return state;
    }

    /**
     * What one attempt uses: a stream slot on an HTTP/2 connection when the endpoint speaks HTTP/2 and the origin
     * agreed, else a connection ({@link #acquire}). Waits for either until the deadline (System.nanoTime()).
     *
     * @param fresh see {@link #acquire}; an HTTP/2 slot is always on a connection that is open and answering
     */
    public ConnectionLease lease(long deadlineNanos, boolean fresh) throws IOException {
        if (http2 != null) {
            ConnectionLease slot = http2.acquire(deadlineNanos);
            if (slot != null) {
                return slot; // a stream slot, or the HTTP/1.1 connection its dial made (adopted here)
            }
        }
        return acquire(deadlineNanos, fresh);
    }

    /**
     * A healthy idle connection, or a new one. Waits for a free slot until the deadline (System.nanoTime()).
     *
     * @param fresh true to skip idle connections and dial a new one (the retry after a stale reuse); if the pool is
     *              full, its least recently used idle connection is closed to make room
     * @throws java.net.ConnectException refused or unreachable
     * @throws java.net.SocketTimeoutException connect timed out
     * @throws PoolExhaustedException no slot freed before the deadline, or the pool was closed
     */
    public PooledConnection acquire(long deadlineNanos, boolean fresh) throws IOException {
        long startNanos = System.nanoTime();
        while (true) {
            Turn turn = takeTurn(startNanos, deadlineNanos, fresh);
            if (turn.replaced != null) {
                turn.replaced.closeQuietly();
                listener.evicted(endpoint, EvictionReason.REPLACED);
            }
            if (turn.idle == null) {
                return dial();
            }
            if (turn.idle.isHealthy(turn.idleForNanos)) {
                reuses.increment();
                onReuse.run();
                return turn.idle;
            }
            retire(turn.idle, EvictionReason.CLOSED_BY_PEER, null);
        }
    }

    /**
     * What {@link #takeTurn} decided under the lock: an idle connection to check, or a reserved slot to dial into
     * (possibly made by closing {@code replaced}).
     */
    private record Turn(PooledConnection idle, long idleForNanos, PooledConnection replaced) {
    }

    private Turn takeTurn(long startNanos, long deadlineNanos, boolean fresh) throws IOException {
        lock.lock();
        try {
            if (closed) {
                throw new PoolExhaustedException("connection pool to " + endpoint + " is closed");
            }
            if (waiters.isEmpty()) { // nobody in line: take what is free
                if (!fresh && !idle.isEmpty()) {
                    PooledConnection connection = idle.pollFirst();
                    connection.state(State.IN_USE);
                    connection.markReused();
                    inUse++;
                    return new Turn(connection, nanoTime.getAsLong() - connection.idleSinceNanos(), null);
                }
                if (idle.size() + inUse + dialling < settings.maxConnections()) {
                    dialling++;
                    return new Turn(null, 0, null);
                }
                if (fresh && !idle.isEmpty()) {
                    PooledConnection oldest = idle.pollLast();
                    oldest.state(State.CLOSED);
                    dialling++;
                    return new Turn(null, 0, oldest);
                }
            }
            return awaitTurn(startNanos, deadlineNanos);
        } finally {
            lock.unlock();
        }
    }

    /** Joins the line and waits (lock held) until handed a connection or a slot, or the deadline passes. */
    private Turn awaitTurn(long startNanos, long deadlineNanos) throws IOException {
        WaiterQueue.Ticket<PooledConnection> me = waiters.join();
        while (true) {
            if (me.item() != null) {
                return new Turn(me.item(), 0, null);
            }
            if (me.hasSlot()) {
                return new Turn(null, 0, null);
            }
            if (me.failure() != null) {
                throw me.failure(); // the dial this request waited on failed
            }
            if (closed) {
                waiters.leave(me);
                throw new PoolExhaustedException("connection pool to " + endpoint + " is closed");
            }
            if (!waiters.awaitUntil(me, deadlineNanos, this::giveBack, "a connection to " + endpoint)) {
                throw new PoolExhaustedException("no connection to " + endpoint + " free within "
                        + TimeUnit.NANOSECONDS.toMillis(Math.max(0, deadlineNanos - startNanos))
                        + "ms (max-connections " + settings.maxConnections() + ")");
            }
        }
    }

    /** Passes on what a waiter that left had been handed (lock held). */
    private void giveBack(WaiterQueue.Ticket<PooledConnection> w) {
        PooledConnection c = waiters.reclaimItem(w);
        if (c != null) {
            inUse--;
            offerReleased(c);
        } else if (waiters.reclaimSlot(w)) {
            dialling--;
            slotFreed();
        }
    }

    /**
     * A connection came back clean (lock held, already out of inUse): to the oldest waiter if there is one, else to
     * the idle list. Returns false if neither wanted it (closed pool or over max-idle): the caller closes it.
     */
    private boolean offerReleased(PooledConnection connection) {
        if (!closed && !waiters.isEmpty()) {
            connection.state(State.IN_USE);
            connection.markReused();
            inUse++;
            waiters.handItem(connection);
            return true;
        }
        if (closed || draining || idle.size() >= settings.maxIdle()) {
            return false;
        }
        connection.idleSinceNanos(nanoTime.getAsLong());
        connection.state(State.IDLE);
        idle.addFirst(connection);
        return true;
    }

    /** A slot became free (lock held): reserve it for the oldest waiter, who will dial. */
    private void slotFreed() {
        if (closed || idle.size() + inUse + dialling >= settings.maxConnections()) {
            return;
        }
        if (!waiters.isEmpty()) {
            dialling++;
            waiters.handSlot();
        }
    }

    /**
     * A dial opened a connection (lock held): the origin answers again, so slots that failed dials freed while other
     * dials were in flight and nothing was open (held back, see {@link #dial}) go to the waiters, oldest first, who
     * dial. Without a held-back slot this does nothing: the pool is full or nobody waits.
     */
    private void serveHeldBackSlots() {
        while (!closed && !waiters.isEmpty() && idle.size() + inUse + dialling < settings.maxConnections()) {
            dialling++;
            waiters.handSlot();
        }
    }

    /** Makes a connection for a reserved slot: dials one, or wraps one already made. */
    @FunctionalInterface
    private interface Opening {
        PooledConnection open(long id) throws IOException;
    }

    private PooledConnection dial() throws IOException {
        return open(id -> connector.connect(this, id));
    }

    /**
     * Takes a TLS connection the endpoint's {@link Http2Pool} dialled and whose origin chose {@code http/1.1} by ALPN
     * as this pool's connection, lent to the caller (the request that dialled it): its first request uses it rather
     * than dialling and handshaking again within a second connect timeout. Null (the connection closed) when this
     * pool has no slot for it: closed, or full (not at the first ALPN answer: {@link Http2Pool} adopts before it sends
     * any request here); the caller then acquires as usual.
     */
    PooledConnection adopt(Connector.Dialled dialled) throws IOException {
        lock.lock();
        boolean slot;
        try {
            slot = !closed && idle.size() + inUse + dialling < settings.maxConnections();
            if (slot) {
                dialling++;
            }
        } finally {
            lock.unlock();
        }
        if (!slot) {
            dialled.raw().close();
            return null;
        }
        return open(id -> connector.adopt(this, id, dialled));
    }

    /** Opens a connection into the slot reserved for it ({@code dialling}); its failure frees the slot. */
    private PooledConnection open(Opening opening) throws IOException {
        PooledConnection connection;
        try {
            connection = opening.open(nextId.incrementAndGet());
        } catch (IOException | RuntimeException e) {
            lock.lock();
            try {
                dialling--;
                if (inUse > 0 || !idle.isEmpty()) {
                    // The origin answers on another connection: this dial's failure may be its own, and the oldest
                    // waiter dials the slot (or is handed a released connection first).
                    slotFreed();
                } else if (dialling == 0) {
                    // The last dial to the endpoint failed and nothing is open: nothing could serve the waiters
                    // but a new dial of the same endpoint, so they fail with this dial's failure now rather than
                    // the oldest being handed the slot to try again for another whole connect timeout, and so on.
                    waiters.failAll(() -> WaiterFailure.of(e));
                }
                // Else nothing is open but other dials are in flight (a flaky endpoint, a momentary refusal): the
                // waiters stay in line for them. A connection one opens is released to the waiters as usual, and
                // frees the slots held back here (serveHeldBackSlots); the last one to fail fails them.
                // The slot is not handed on meanwhile: a dead endpoint would otherwise be dialled by each waiter
                // in turn, each failure freeing a slot for the next. No waiter waits past its own deadline.
            } finally {
                lock.unlock();
            }
            throw e;
        }
        lock.lock();
        try {
            dialling--;
            if (!closed) {
                inUse++;
                connects.increment();
                serveHeldBackSlots();
                return connection;
            }
            connection.state(State.CLOSED);
        } finally {
            lock.unlock();
        }
        connection.closeQuietly();
        listener.evicted(endpoint, EvictionReason.SHUTDOWN);
        throw new PoolExhaustedException("connection pool to " + endpoint + " closed while dialling");
    }

    /** Gives back a connection whose last exchange ended cleanly. */
    public void release(PooledConnection connection) {
        EvictionReason evictReason = null;
        lock.lock();
        try {
            checkLent(connection, "release");
            connection.output().releaseBuffer();
            inUse--;
            if (!offerReleased(connection)) {
                evictReason = closed ? EvictionReason.SHUTDOWN
                        : draining ? EvictionReason.DRAINED : EvictionReason.OVER_MAX_IDLE;
                connection.state(State.CLOSED);
                slotFreed();
            }
        } finally {
            lock.unlock();
        }
        if (evictReason != null) {
            connection.closeQuietly();
            listener.evicted(endpoint, evictReason);
        }
    }

    /** Closes a connection that must not be reused. */
    public void discard(PooledConnection connection) {
        retire(connection, EvictionReason.DISCARDED, "discard");
    }

    /** Closes a lent connection for good; {@code action}, if given, names the caller's call for the state check. */
    private void retire(PooledConnection connection, EvictionReason reason, String action) {
        lock.lock();
        try {
            if (action != null) {
                checkLent(connection, action);
            }
            inUse--;
            connection.state(State.CLOSED);
            slotFreed();
        } finally {
            lock.unlock();
        }
        connection.closeQuietly();
        listener.evicted(endpoint, reason);
    }

    private void checkLent(PooledConnection connection, String action) {
        if (connection.pool() != this) {
            throw new IllegalStateException("cannot " + action + " " + connection + " to the pool to " + endpoint
                    + ": it belongs to another pool");
        }
        if (connection.state() != State.IN_USE) {
            throw new IllegalStateException("cannot " + action + " " + connection + ": it is " + connection.state()
                    + ", not IN_USE (released or discarded twice?)");
        }
    }

    /**
     * Closes idle connections that have been idle for at least the idle timeout at {@code nowNanos} (a reading of
     * this pool's clock) and returns how many nanoseconds until the next one will be due. With nothing idle that is
     * a whole idle timeout: a connection released right now is the soonest that can come due.
     */
    long cleanup(long nowNanos) {
        if (http2 != null) {
            http2.cleanup(System.nanoTime()); // its connections keep System.nanoTime, whatever clock ages these
        }
        List<PooledConnection> expired = new ArrayList<>();
        long nextDelay;
        lock.lock();
        try {
            // The tail is the oldest: release pushes at the head with a monotonic clock, so the scan stops at the
            // first connection still inside its timeout.
            while (!idle.isEmpty() && nowNanos - idle.peekLast().idleSinceNanos() >= idleTimeoutNanos) {
                PooledConnection connection = idle.pollLast();
                connection.state(State.CLOSED);
                expired.add(connection);
                slotFreed();
            }
            nextDelay = idle.isEmpty()
                    ? idleTimeoutNanos
                    : idle.peekLast().idleSinceNanos() + idleTimeoutNanos - nowNanos;
        } finally {
            lock.unlock();
        }
        for (PooledConnection connection : expired) {
            connection.closeQuietly();
            listener.evicted(endpoint, EvictionReason.IDLE_TIMEOUT);
        }
        return nextDelay;
    }

    /** {@link #cleanup(long)} now, by this pool's clock. */
    long cleanup() {
        return cleanup(nanoTime.getAsLong());
    }

    /**
     * Retires a pool a live reload no longer names: its idle connections close now, and each connection released
     * from now on is closed rather than kept. Acquire still works (it dials), so a request that matched an old route
     * just before the swap still gets its connection; once the last one is released the pool holds nothing.
     * Idempotent.
     */
    public void drain() {
        stop(false);
    }

    /**
     * Closes the idle connections and makes every later acquire fail; connections in use are closed when released
     * or discarded. Threads waiting for a slot wake and fail. Idempotent.
     */
    void close() {
        stop(true);
    }

    /**
     * Closes the idle connections, then either keeps serving with nothing kept ({@link #drain}: a freed slot goes to
     * a waiter) or fails every acquire from now on ({@link #close}: the waiters wake and fail).
     */
    private void stop(boolean shutdown) {
        if (http2 != null) {
            http2.drain(shutdown);
        }
        List<PooledConnection> idleNow;
        lock.lock();
        try {
            closed |= shutdown;
            draining |= !shutdown;
            idleNow = new ArrayList<>(idle);
            idle.clear();
            for (PooledConnection c : idleNow) {
                c.state(State.CLOSED);
                slotFreed(); // does nothing once closed
            }
            if (shutdown) {
                waiters.wakeAll();
            }
        } finally {
            lock.unlock();
        }
        EvictionReason reason = shutdown ? EvictionReason.SHUTDOWN : EvictionReason.DRAINED;
        for (PooledConnection connection : idleNow) {
            connection.closeQuietly();
            listener.evicted(endpoint, reason);
        }
    }

    public int idleCount() {
        return locked(idle::size);
    }

    /** Connections lent out now (not counting those being dialled). */
    public int inUseCount() {
        return locked(() -> inUse);
    }

    /** Acquirers waiting in line now (tests: a waiter is still in line, not failed or served). */
    int waitingCount() {
        return locked(waiters::size);
    }

    /** A count read under the lock. */
    private int locked(IntSupplier count) {
        lock.lock();
        try {
            return count.getAsInt();
        } finally {
            lock.unlock();
        }
    }

    /** HTTP/2 connections open now (0 for an HTTP/1.1 endpoint). */
    public int http2ConnectionCount() {
        return http2 == null ? 0 : http2.connectionCount();
    }

    /** Streams in flight on the HTTP/2 connections (0 for an HTTP/1.1 endpoint). */
    public int http2StreamCount() {
        return http2 == null ? 0 : http2.streamCount();
    }

    /** Connections dialled successfully since the pool was made. */
    public long connectCount() {
        return connects.sum();
    }

    /** Idle connections handed out again (after passing the health check) since the pool was made. */
    public long reuseCount() {
        return reuses.sum();
    }

    @Override
    public String toString() {
        return "pool to " + endpoint;
    }
}
