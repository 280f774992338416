package io.loomgate.upstream;

import io.loomgate.http2.Http2ClientConnection;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP/2 connections of one endpoint ({@code h2c://}, or {@code https://} with {@code upstream.http2}): few
 * multiplexed connections instead of a connection per request in flight. An attempt {@link #acquire leases} a stream
 * slot on a connection that has one; another connection is opened only when every open one carries the origin's
 * SETTINGS_MAX_CONCURRENT_STREAMS, up to {@code http2-max-connections}; past that, acquire waits for a slot until
 * its deadline, like the HTTP/1.1 pool.
 *
 * <p>A connection that received GOAWAY or died leaves the list at once (it finishes its streams and closes itself),
 * so new requests open a new one. An https origin that chooses HTTP/1.1 by ALPN makes {@link #acquire} answer null
 * from then on: the endpoint's HTTP/1.1 pool serves it (decided once per pool; a reload or restart asks again).
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
    public record Lease(Http2ClientConnection connection, boolean reused) {
    }

    private final Endpoint endpoint;
    private final PoolSettings settings;
    private final Connector connector;
    private final PoolListener listener;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition capacity = lock.newCondition();
    // guarded by lock
    private final List<Http2ClientConnection> connections = new ArrayList<>();
    private int dialling;
    private int waiting;
    private boolean closed;
    private volatile boolean http1Only;
    private final AtomicLong nextId = new AtomicLong();
    private final AtomicLong connects = new AtomicLong();
    /** The keep-alive interval new connections get: the configured one, doubled by each too_many_pings. */
    private final AtomicLong keepAliveIntervalNanos;

    Http2Pool(Endpoint endpoint, PoolSettings settings, Connector connector, PoolListener listener) {
        this.endpoint = endpoint;
        this.settings = settings;
        this.connector = connector;
        this.listener = listener;
        this.keepAliveIntervalNanos = new AtomicLong(settings.http2KeepAlive().interval().toNanos());
    }

    /**
     * Reserves a stream slot on a connection with room, dialling a new connection when none has and the cap allows,
     * else waiting until {@code deadlineNanos} (System.nanoTime). Null when the origin speaks only HTTP/1.1.
     *
     * @throws PoolExhaustedException no slot before the deadline, or the pool was closed
     * @throws java.net.ConnectException, java.net.SocketTimeoutException, UpstreamTlsException as the dial failed
     */
    public Lease acquire(long deadlineNanos) throws IOException {
        long start = System.nanoTime();
        while (true) {
            lock.lock();
            try {
                Lease lease = reserveOrWait(start, deadlineNanos);
                if (lease != null) {
                    return lease;
                }
                if (http1Only) {
                    return null;
                }
                dialling++; // reserveOrWait returned null with room to dial
            } finally {
                lock.unlock();
            }
            Http2ClientConnection opened = null;
            try {
                opened = dial();
            } finally {
                lock.lock();
                try {
                    dialling--;
                    if (opened != null) {
                        connections.add(opened);
                    }
                    capacity.signalAll();
                } finally {
                    lock.unlock();
                }
            }
            if (opened == null) {
                http1Only = true;
                return null;
            }
            if (closed) {
                opened.close("pool closed");
            }
        }
    }

    /** Lock held: a lease, or null when the caller should dial (or fall back to HTTP/1.1); waits otherwise. */
    private Lease reserveOrWait(long start, long deadlineNanos) throws IOException {
        while (true) {
            if (closed) {
                throw new PoolExhaustedException("HTTP/2 connection pool to " + endpoint + " is closed");
            }
            if (http1Only) {
                return null;
            }
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
            // One dial at a time: the connection being dialled brings a whole SETTINGS_MAX_CONCURRENT_STREAMS of
            // slots, so a burst of requests at a cold endpoint waits for it rather than opening one each.
            if (dialling == 0 && connections.size() < settings.http2MaxConnections()) {
                return null;
            }
            long left = deadlineNanos - System.nanoTime();
            if (left <= 0) {
                throw new PoolExhaustedException("no HTTP/2 stream to " + endpoint + " free within "
                        + TimeUnit.NANOSECONDS.toMillis(Math.max(0, deadlineNanos - start)) + "ms ("
                        + settings.http2MaxConnections() + " connections at the origin's max concurrent streams)");
            }
            waiting++;
            try {
                capacity.awaitNanos(left);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("interrupted while waiting for an HTTP/2 stream to " + endpoint);
            } finally {
                waiting--;
            }
        }
    }

    /** A connection, started; null when the origin chose HTTP/1.1 by ALPN. */
    private Http2ClientConnection dial() throws IOException {
        Connector.Dialled d = connector.dialHttp2();
        if (!d.h2()) {
            return null;
        }
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
                    closeSocket, settings.limits().maxHeaderBytes(), this::capacityChanged);
            long interval = keepAliveIntervalNanos.get();
            if (interval > 0) {
                c.keepAlive(interval, settings.http2KeepAlive().timeout().toNanos(), this::tooManyPings);
            }
            c.start();
            // Streams wait for the origin's SETTINGS: opening more than its MAX_CONCURRENT_STREAMS would get them
            // refused.
            c.awaitSettings(System.nanoTime() + settings.connectTimeout().toNanos());
            connects.incrementAndGet();
            return c;
        } catch (IOException | RuntimeException e) {
            closeSocket.run();
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

    /** A connection freed a slot or stopped taking streams: wake the waiters, if any. */
    private void capacityChanged() {
        lock.lock();
        try {
            if (waiting > 0) {
                capacity.signalAll();
            }
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
            capacity.signalAll();
        } finally {
            lock.unlock();
        }
        for (Http2ClientConnection c : all) {
            c.goAway();
            listener.evicted(endpoint, shutdown ? EvictionReason.SHUTDOWN : EvictionReason.DRAINED);
        }
    }

    /** Whether the origin answered ALPN with HTTP/1.1: requests use the HTTP/1.1 pool. */
    public boolean http1Only() {
        return http1Only;
    }

    /** HTTP/2 connections open (taking new streams) now. */
    public int connectionCount() {
        lock.lock();
        try {
            return connections.size();
        } finally {
            lock.unlock();
        }
    }

    /** Streams in flight on those connections. */
    public int streamCount() {
        lock.lock();
        try {
            int n = 0;
            for (Http2ClientConnection c : connections) {
                n += c.activeStreams();
            }
            return n;
        } finally {
            lock.unlock();
        }
    }

    /** The most response bytes one stream held unread, over the open connections (flow control bounds it). */
    public int maxBufferedPerStream() {
        lock.lock();
        try {
            int max = 0;
            for (Http2ClientConnection c : connections) {
                max = Math.max(max, c.maxStreamBuffered());
            }
            return max;
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
