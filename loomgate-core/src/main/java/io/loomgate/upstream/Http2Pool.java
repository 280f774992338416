package io.loomgate.upstream;

import io.loomgate.http.ConnectionAttributes;
import io.loomgate.http2.Http2ClientConnection;
import io.loomgate.threads.LingeringClose;
import io.loomgate.threads.Watchdog;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.IntBinaryOperator;
import java.util.function.ToIntFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP/2 connections of one endpoint ({@code h2c://}, or {@code https://} with {@code upstream.http2}): few
 * multiplexed connections instead of a connection per request in flight. An attempt {@link #acquire leases} a stream
 * slot on a connection that has one; another connection is opened only when every open one carries the origin's
 * SETTINGS_MAX_CONCURRENT_STREAMS, up to {@code http2-max-connections}; past that, acquire waits for a slot until
 * its deadline in the HTTP/1.1 pool's first-come-first-served line ({@link WaiterQueue}). A dial that fails with no
 * connection open fails the waiters with it ({@link WaiterFailure}): they waited on that one dial (one dial at a
 * time, so none other is in flight that could serve them). A connection counts as made when the origin's SETTINGS
 * came; a SETTINGS wait that runs out is the dial's connect failure.
 *
 * <p>A connection that received GOAWAY or died leaves the list at once (it finishes its streams and closes itself),
 * so new requests open a new one. An https origin that chooses HTTP/1.1 by ALPN makes {@link #acquire} answer null
 * from then on: the endpoint's HTTP/1.1 pool serves it (decided once per pool; a reload or restart asks again), and
 * adopts the connection that found it out, on which the request that dialled it runs (one dial, one handshake).
 *
 * <p>Keep-alive: each connection PINGs the origin after {@code http2-keepalive-interval} of silence and closes when
 * nothing comes back within {@code http2-keepalive-timeout} (see {@link Http2ClientConnection#keepAlive}). An origin
 * that answers the PINGs with GOAWAY ENHANCE_YOUR_CALM ({@code too_many_pings}) doubles the interval for this
 * endpoint's next connections, up to {@link Http2KeepAlive#MAX_INTERVAL}, as grpc-java does.
 *
 * <p>Thread-safe: the list and counters are guarded by {@code lock}, never held across I/O (dialling happens after
 * a slot is reserved and the lock released, as in {@link UpstreamPool}).
 */
public final class Http2Pool {
    private static final Logger log = LoggerFactory.getLogger(Http2Pool.class);
    /** Read buffer of a connection's reader: a few frames, so small frames cost one system call between them. */
    private static final int READ_BUFFER = 16 * 1024 + 9;

    /** A stream slot reserved on {@code connection} for one attempt; {@code reused}: it carried streams before. */
    public record Lease(Http2ClientConnection connection, boolean reused) implements ConnectionLease {
        @Override
        public ConnectionAttributes attributes() {
            return connection.attributes();
        }
    }

    /** Takes a connection whose origin chose HTTP/1.1 into the endpoint's HTTP/1.1 pool; null if it had no room. */
    @FunctionalInterface
    interface Http1Adopter {
        PooledConnection adopt(Connector.Dialled dialled) throws IOException;
    }

    private final Endpoint endpoint;
    private final PoolSettings settings;
    private final Connector connector;
    private final PoolListener listener;
    private final Http1Adopter http1;
    /** What {@code reserveOrWait} answers when the origin speaks only HTTP/1.1 (never handed out). */
    private static final Lease USE_HTTP1 = new Lease(null, false);

    private final ReentrantLock lock = new ReentrantLock();
    // guarded by lock
    private final List<Http2ClientConnection> connections = new ArrayList<>();
    /** Acquirers waiting for a slot, oldest first: the HTTP/1.1 pool's rule ({@link UpstreamPool}). */
    private final WaiterQueue<Lease> waiters = new WaiterQueue<>(lock);
    private int dialling;
    private boolean closed;
    private volatile boolean http1Only;

    /**
     * Connections lingering after our GOAWAY for an error (a flood), from the linger's start to its end: one the list
     * has dropped (dead connections leave it at the next reservation) is still ended by {@link #drain}, not only by
     * its own bounds (10 s).
     */
    private final Set<Http2ClientConnection> lingering = ConcurrentHashMap.newKeySet();

    private final AtomicLong nextId = new AtomicLong();
    private final AtomicLong connects = new AtomicLong();
    /** The keep-alive interval new connections get: the configured one, doubled by each too_many_pings. */
    private final AtomicLong keepAliveIntervalNanos;

    Http2Pool(Endpoint endpoint, PoolSettings settings, Connector connector, PoolListener listener,
            Http1Adopter http1) {
        this.endpoint = endpoint;
        this.settings = settings;
        this.connector = connector;
        this.listener = listener;
        this.http1 = http1;
        this.keepAliveIntervalNanos = new AtomicLong(settings.http2KeepAlive().interval().toNanos());
    }

    /**
     * Reserves a stream slot on a connection with room, dialling a new connection when none has and the cap allows,
     * else waiting until {@code deadlineNanos} (System.nanoTime) in the same first-come-first-served line as the
     * HTTP/1.1 pool's ({@link WaiterQueue}): a freed slot goes to the oldest waiter. Null when the origin speaks only
     * HTTP/1.1; the dial that found it out answers the HTTP/1.1 connection it made instead, adopted by the
     * endpoint's HTTP/1.1 pool ({@link UpstreamPool#adopt}), so the first request does not dial twice.
     *
     * @return a {@link Lease}, a {@link PooledConnection} of the HTTP/1.1 pool, or null
     * @throws PoolExhaustedException no slot before the deadline, or the pool was closed
     * @throws java.net.ConnectException, java.net.SocketTimeoutException, UpstreamTlsException as the dial failed
     */
    public ConnectionLease acquire(long deadlineNanos) throws IOException {
        long start = System.nanoTime();
        while (true) {
            ConnectionLease lease;
            lock.lock();
            try {
                lease = reserveOrWait(start, deadlineNanos);
            } finally {
                lock.unlock();
            }
            if (lease == null) {
                lease = dialAndReserve(); // a dial slot is ours
            }
            if (lease != null) {
                return lease == USE_HTTP1 ? null : lease;
            }
        }
    }

    /**
     * Dials (a dial slot counted in {@code dialling}) and reserves a slot on the new connection for the dialler; the
     * rest of its slots go to the waiters, in order. Null when the new connection had no slot to give; the adopted
     * HTTP/1.1 connection, or {@link #USE_HTTP1}, when the origin chose HTTP/1.1.
     *
     * <p>This pool dials one connection at a time ({@link #mayDial}), so a dial that fails is the only one in flight:
     * with nothing open, nothing else could serve the waiters.
     */
    private ConnectionLease dialAndReserve() throws IOException {
        Http2ClientConnection opened = null;
        PooledConnection adopted = null;
        boolean choseHttp1 = false;
        Exception failed = null;
        Lease mine = null;
        boolean stillOpen = true;
        try {
            Connector.Dialled d = connector.dialHttp2();
            if (d.h2()) {
                opened = start(d);
            } else {
                choseHttp1 = true;
                // Adopted before the waiters are woken to move to the HTTP/1.1 pool: the slot there is the
                // dialler's.
                adopted = http1.adopt(d);
            }
        } catch (IOException | RuntimeException e) {
            failed = e;
            throw e;
        } finally {
            lock.lock();
            try {
                dialling--;
                if (opened == null) {
                    // the dial failed or the origin chose HTTP/1.1 (every waiter falls back)
                    http1Only |= choseHttp1;
                } else if (closed) {
                    stillOpen = false;
                } else {
                    connections.add(opened);
                    if (opened.tryReserve()) {
                        mine = new Lease(opened, opened.streamsOpened() > 0);
                    }
                }
                if (http1Only) {
                    waiters.wakeAll();
                } else if (failed != null && !anyUsable()) {
                    // The waiters waited on this dial and nothing open can serve them: they fail with it now
                    // (Envoy's pending requests on a failed connect), rather than the oldest being handed the dial
                    // slot to try the same endpoint for another whole connect timeout, and so on down the line.
                    Exception cause = failed;
                    waiters.failAll(() -> WaiterFailure.of(cause));
                } else {
                    serveWaiters();
                }
            } finally {
                lock.unlock();
            }
        }
        if (!stillOpen) {
            opened.close("pool closed");
            throw new PoolExhaustedException("HTTP/2 connection pool to " + endpoint + " closed while dialling");
        }
        if (opened == null) {
            return adopted != null ? adopted : USE_HTTP1;
        }
        return mine;
    }

    /**
     * Lock held: a lease; {@link #USE_HTTP1} when the origin speaks only HTTP/1.1; null when the caller is to dial
     * (a dial slot counted for it). Waits in line otherwise.
     */
    private Lease reserveOrWait(long start, long deadlineNanos) throws IOException {
        if (closed) {
            throw new PoolExhaustedException("HTTP/2 connection pool to " + endpoint + " is closed");
        }
        if (http1Only) {
            return USE_HTTP1;
        }
        if (waiters.isEmpty()) { // nobody in line: take what is free
            Lease lease = reserve();
            if (lease != null) {
                return lease;
            }
            if (mayDial()) {
                dialling++;
                return null;
            }
        }
        WaiterQueue.Ticket<Lease> me = waiters.join();
        while (true) {
            if (me.item() != null) {
                return me.item();
            }
            if (me.hasSlot()) {
                return null;
            }
            if (me.failure() != null) {
                throw me.failure(); // the dial this request waited on failed
            }
            if (closed) {
                waiters.leave(me);
                throw new PoolExhaustedException("HTTP/2 connection pool to " + endpoint + " is closed");
            }
            if (http1Only) {
                waiters.leave(me);
                return USE_HTTP1;
            }
            if (!waiters.awaitUntil(me, deadlineNanos, this::giveBack, "an HTTP/2 stream to " + endpoint)) {
                throw new PoolExhaustedException("no HTTP/2 stream to " + endpoint + " free within "
                        + TimeUnit.NANOSECONDS.toMillis(Math.max(0, deadlineNanos - start)) + "ms ("
                        + settings.http2MaxConnections() + " connections at the origin's max concurrent streams)");
            }
        }
    }

    /** Lock held: a slot reserved on an open connection with room, or null; dead and gone-away ones leave. */
    private Lease reserve() {
        for (int i = 0; i < connections.size(); i++) {
            Http2ClientConnection c = connections.get(i);
            if (!c.isUsable()) {
                // Gone away or dead: it finishes its streams and closes itself; new requests go elsewhere.
                connections.remove(i--);
                listener.evicted(endpoint, c.isDead() ? EvictionReason.CLOSED_BY_PEER : EvictionReason.DRAINED);
                continue;
            }
            if (c.tryReserve()) {
                return new Lease(c, c.streamsOpened() > 0);
            }
        }
        return null;
    }

    /** Lock held: whether an open connection still takes streams (a waiter may get one of its slots). */
    private boolean anyUsable() {
        for (Http2ClientConnection c : connections) {
            if (c.isUsable()) {
                return true;
            }
        }
        return false;
    }

    /**
     * Lock held: one dial at a time, under the cap. The connection being dialled brings a whole
     * SETTINGS_MAX_CONCURRENT_STREAMS of slots, so a burst of requests at a cold endpoint waits for it rather than
     * opening one each.
     */
    private boolean mayDial() {
        return dialling == 0 && connections.size() < settings.http2MaxConnections();
    }

    /** Lock held: free slots to the waiters, oldest first; a dial slot to the oldest when none is free. */
    private void serveWaiters() {
        while (!closed && !waiters.isEmpty()) {
            Lease lease = reserve();
            if (lease != null) {
                waiters.handItem(lease);
                continue;
            }
            if (mayDial()) {
                dialling++;
                waiters.handSlot();
            }
            return;
        }
    }

    /** Lock held: passes on what a waiter that left had been handed. */
    private void giveBack(WaiterQueue.Ticket<Lease> w) {
        Lease lease = waiters.reclaimItem(w);
        if (lease != null) {
            lease.connection().unreserve(); // its capacity callback serves the next in line
        } else if (waiters.reclaimSlot(w)) {
            dialling--;
            serveWaiters();
        }
    }

    /**
     * The HTTP/2 connection over what {@code d} dialled, started, once the origin's SETTINGS came: counted then as a
     * connection made, or, when they did not come within what is left of the connect timeout (or the origin closed
     * first), as the dial's connect failure.
     */
    private Http2ClientConnection start(Connector.Dialled d) throws IOException {
        Socket raw = d.raw();
        Runnable closeSocket = () -> {
            try {
                raw.close(); // the plain socket: closing it never waits behind a TLS writer
            } catch (IOException ignored) {
                // gone either way
            }
        };
        try {
            Http2ClientConnection c = new Http2ClientConnection(endpoint.authority() + "#" + nextId.incrementAndGet(),
                    new BufferedInputStream(d.socket().getInputStream(), READ_BUFFER), d.socket().getOutputStream(),
                    closeSocket, settings.limits().maxHeaderBytes(), this::capacityChanged, settings.http2Floods());
            // After our GOAWAY for an error (a flood) the origin may still be sending: a lingering close, so that it
            // reads the GOAWAY before our close (a RST with its frames unread) could discard it.
            c.lingerOnError(() -> {
                long t0 = System.nanoTime();
                lingering.add(c);
                try {
                    if (isClosed()) { // shut down since the reader chose to linger, before the add: drain missed it
                        c.close("shut down");
                    }
                    LingeringClose.End end = LingeringClose.halfCloseThenDiscard(raw, d.socket(), Watchdog.shared(),
                            LingeringClose.PER_READ.toNanos());
                    log.debug("upstream {}: {} lingering close ended {} after {} ms", endpoint, c, end,
                            (System.nanoTime() - t0) / 1_000_000);
                } finally {
                    lingering.remove(c);
                }
            });
            long interval = keepAliveIntervalNanos.get();
            if (interval > 0) {
                c.keepAlive(interval, settings.http2KeepAlive().timeout().toNanos(), this::tooManyPings);
            }
            c.start();
            // Streams wait for the origin's SETTINGS: opening more than its MAX_CONCURRENT_STREAMS would get them
            // refused. Within what the connect and the handshake left of the connect timeout: one budget per dial.
            c.awaitSettings(d.deadline());
            connects.incrementAndGet();
            connector.settled(d);
            return c;
        } catch (IOException | RuntimeException e) {
            closeSocket.run();
            connector.settingsFailed(d, e);
            throw e;
        }
    }

    /** The origin said our PINGs (every {@code usedNanos}) were too many: the next connections ping half as often. */
    private void tooManyPings(long usedNanos) {
        long max = Http2KeepAlive.MAX_INTERVAL.toNanos();
        long now = keepAliveIntervalNanos.accumulateAndGet(Math.min(max, usedNanos * 2), Math::max);
        log.warn("upstream {}: the origin refused PINGs every {}ms (ENHANCE_YOUR_CALM); new connections ping after "
                + "{}ms of silence", endpoint, TimeUnit.NANOSECONDS.toMillis(usedNanos),
                TimeUnit.NANOSECONDS.toMillis(now));
    }

    /** The keep-alive interval the next connection gets, in nanoseconds (0: off). */
    public long keepAliveIntervalNanos() {
        return keepAliveIntervalNanos.get();
    }

    /** A connection freed a slot or stopped taking streams: the freed slots go to the waiters, if any. */
    private void capacityChanged() {
        lock.lock();
        try {
            serveWaiters();
        } finally {
            lock.unlock();
        }
    }

    /** Closes connections that carried no stream for the idle timeout (the pool sweeper calls this). */
    void cleanup(long nowNanos) {
        List<Http2ClientConnection> idle = new ArrayList<>();
        lock.lock();
        try {
            connections.removeIf(c -> {
                if (c.closeIfIdle(nowNanos, settings.idleTimeout().toNanos())) {
                    idle.add(c);
                    return true;
                }
                return false;
            });
        } finally {
            lock.unlock();
        }
        idle.forEach(c -> listener.evicted(endpoint, EvictionReason.IDLE_TIMEOUT));
    }

    /**
     * Stops using the connections: idle ones close now, busy ones when their streams end ({@code shutdown}: and no
     * acquire succeeds any more). Used by a reload that dropped the endpoint, and at shut-down.
     */
    void drain(boolean shutdown) {
        List<Http2ClientConnection> all;
        lock.lock();
        try {
            closed |= shutdown;
            all = new ArrayList<>(connections);
            connections.clear();
            if (closed) {
                waiters.wakeAll();
            } else {
                serveWaiters(); // a waiter dials a new connection
            }
        } finally {
            lock.unlock();
        }
        for (Http2ClientConnection c : all) {
            c.goAway();
            listener.evicted(endpoint, shutdown ? EvictionReason.SHUTDOWN : EvictionReason.DRAINED);
        }
        // Lingering ones the list dropped already (counted out when they left it): their linger ends now, as goAway
        // ends the linger of one still listed.
        for (Http2ClientConnection c : lingering) {
            c.close(shutdown ? "shut down" : "pool drained");
        }
    }

    private boolean isClosed() {
        lock.lock();
        try {
            return closed;
        } finally {
            lock.unlock();
        }
    }

    /** Whether the origin answered ALPN with HTTP/1.1: requests use the HTTP/1.1 pool. */
    public boolean http1Only() {
        return http1Only;
    }

    /** HTTP/2 connections open (taking new streams) now. */
    public int connectionCount() {
        return overConnections(c -> 1, Integer::sum);
    }

    /** Streams in flight on those connections. */
    public int streamCount() {
        return overConnections(Http2ClientConnection::activeStreams, Integer::sum);
    }

    /** The most response bytes one stream held unread, over the open connections (flow control bounds it). */
    public int maxBufferedPerStream() {
        return overConnections(Http2ClientConnection::maxStreamBuffered, Math::max);
    }

    /** {@code each} of the open connections combined by {@code combine}, from 0, under the lock. */
    private int overConnections(ToIntFunction<Http2ClientConnection> each, IntBinaryOperator combine) {
        lock.lock();
        try {
            int result = 0;
            for (Http2ClientConnection c : connections) {
                result = combine.applyAsInt(result, each.applyAsInt(c));
            }
            return result;
        } finally {
            lock.unlock();
        }
    }

    /** Connections dialled since the pool was made. */
    public long connectCount() {
        return connects.get();
    }

    @Override
    public String toString() {
        return "HTTP/2 pool to " + endpoint;
    }
}
