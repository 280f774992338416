package io.loomgate.http2;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The PING keep-alive of one {@link Http2ClientConnection} (the client role only), on a virtual thread of its own: a
 * multiplexed connection may sit idle for long, and a NAT or firewall (or an origin) that dropped it silently would
 * otherwise be found only when a request fails on it. A PING goes out after the connection was silent (no frame read)
 * for the interval, at most one outstanding; if nothing at all is read within the timeout the connection is closed.
 * Any frame read counts as an answer, as in grpc-java: a PING ACK queued behind DATA is late but the connection is
 * alive. A GOAWAY ENHANCE_YOUR_CALM after our PINGs (gRPC servers say {@code too_many_pings}) is reported so the pool
 * slows down for the next connection.
 *
 * <p>Threads: the connection's reader reports reads ({@link #read}); counters and the wait are under the connection's
 * lock.
 */
final class KeepAlive {
    private static final Logger log = LoggerFactory.getLogger(KeepAlive.class);

    private final Http2ClientConnection conn;
    private final String name;
    private final ReentrantLock lock;
    private final Condition wake;
    private final long intervalNanos;
    private final long timeoutNanos;
    private final LongConsumer onTooManyPings;
    private volatile long lastReadNanos = System.nanoTime();
    private volatile boolean pingOutstanding;
    // guarded by lock
    private long pingsSent;
    private long pingAcks;

    KeepAlive(Http2ClientConnection conn, String name, ReentrantLock lock, long intervalNanos, long timeoutNanos,
              LongConsumer onTooManyPings) {
        if (intervalNanos <= 0 || timeoutNanos <= 0) {
            throw new IllegalArgumentException("keep-alive interval and timeout must be positive");
        }
        this.conn = conn;
        this.name = name;
        this.lock = lock;
        this.wake = lock.newCondition();
        this.intervalNanos = intervalNanos;
        this.timeoutNanos = timeoutNanos;
        this.onTooManyPings = onTooManyPings;
    }

    /** The reader read (part of) a frame: the origin is alive; a PING outstanding is answered. */
    void read() {
        lastReadNanos = System.nanoTime();
        if (pingOutstanding) {
            lock.lock();
            try {
                pingOutstanding = false;
                wake.signalAll();
            } finally {
                lock.unlock();
            }
        }
    }

    /** Under the lock: a PING ACK was read. */
    void ackedLocked() {
        pingAcks++;
    }

    /** Under the lock: the connection died; the keep-alive thread ends. */
    void wakeLocked() {
        wake.signalAll();
    }

    /** Under the lock: whether a PING of ours went out, so a GOAWAY ENHANCE_YOUR_CALM may be about them. */
    boolean pingedLocked() {
        return pingsSent > 0;
    }

    /** The origin answered our PINGs with GOAWAY ENHANCE_YOUR_CALM: said, and told to the pool. */
    void tooManyPings(byte[] goAwayPayload) {
        String debug = new String(goAwayPayload, 8, goAwayPayload.length - 8, StandardCharsets.UTF_8);
        log.warn("h2 upstream {}: the origin sent GOAWAY ENHANCE_YOUR_CALM ({}) after our keep-alive PINGs "
                + "every {}ms", name, debug, TimeUnit.NANOSECONDS.toMillis(intervalNanos));
        onTooManyPings.accept(intervalNanos);
    }

    long pingsSent() {
        lock.lock();
        try {
            return pingsSent;
        } finally {
            lock.unlock();
        }
    }

    long pingAcks() {
        lock.lock();
        try {
            return pingAcks;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Until the connection dies: waits for {@code interval} of silence, sends a PING, and closes the connection if
     * nothing is read within the timeout. One PING at most in flight, so the origin never sees more than one per
     * interval.
     */
    void run() {
        byte[] payload = new byte[8];
        try {
            while (true) {
                lock.lock();
                try {
                    long quietLeft;
                    while (!conn.deadLocked()
                            && (quietLeft = lastReadNanos + intervalNanos - System.nanoTime()) > 0) {
                        wake.awaitNanos(quietLeft);
                    }
                    if (conn.deadLocked()) {
                        return;
                    }
                    pingsSent++;
                    pingOutstanding = true;
                    FrameWriter.putInt(payload, 4, (int) pingsSent);
                } finally {
                    lock.unlock();
                }
                long sentAt = System.nanoTime();
                conn.ping(payload);
                boolean alive;
                lock.lock();
                try {
                    long left;
                    while (!conn.deadLocked() && lastReadNanos - sentAt < 0
                            && (left = sentAt + timeoutNanos - System.nanoTime()) > 0) {
                        wake.awaitNanos(left);
                    }
                    if (conn.deadLocked()) {
                        return;
                    }
                    alive = lastReadNanos - sentAt >= 0;
                    pingOutstanding = false;
                } finally {
                    lock.unlock();
                }
                if (!alive) {
                    String why = "no answer to a keep-alive PING within "
                            + TimeUnit.NANOSECONDS.toMillis(timeoutNanos) + "ms";
                    log.warn("h2 upstream {}: {}; closing it (its streams fail, new ones use another connection)",
                            name, why);
                    // No GOAWAY first: a write to a connection that stopped answering may block; closing the
                    // socket cannot, and it also ends any write stuck on it.
                    conn.die("closed: " + why);
                    return;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException e) {
            conn.die("keep-alive PING write failed: " + e.getMessage());
        }
    }
}
