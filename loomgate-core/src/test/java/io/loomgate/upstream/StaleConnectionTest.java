package io.loomgate.upstream;

import static io.loomgate.upstream.TestPools.within;
import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.CountingServer;
import java.io.OutputStream;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The health check on acquire: a plain connection gets a non-blocking read when lent after 50 ms of idleness (on the
 * epoll transport on every lease when its readiness flags say something came, whatever they say after a second of
 * idleness), and one the origin closed (or wrote to out of turn) is discarded for a new dial. The idle time is stepped on the
 * pool's clock, never slept.
 */
class StaleConnectionTest {
    private static final long LONG_IDLE = PooledConnection.PROBE_AFTER_IDLE_NANOS + 1;

    private final AtomicLong clock = new AtomicLong();
    private final RecordingPoolListener listener = new RecordingPoolListener();
    private CountingServer server;
    private UpstreamPool pool;

    @BeforeEach
    void start() throws Exception {
        server = new CountingServer();
        pool = TestPools.pool(server, settings(), listener, clock);
    }

    /** The pool's settings: the JDK's sockets here; loomgate-epoll runs these tests again with its dialer. */
    PoolSettings settings() {
        return TestPools.settings(10, 10);
    }

    @AfterEach
    void stop() throws Exception {
        pool.close();
        server.close();
    }

    @Test
    void longIdleConnectionClosedByOriginIsDiscardedAndReplaced() throws Exception {
        PooledConnection stale = idleConnection();
        server.accepted(0).close();
        clock.addAndGet(LONG_IDLE);

        PooledConnection connection = pool.acquire(within(Duration.ofSeconds(5)), false);

        assertThat(connection).isNotSameAs(stale);
        assertThat(connection.reused()).isFalse();
        assertThat(stale.socket().isClosed()).isTrue();
        server.awaitCount(2);
        assertThat(pool.inUseCount()).isEqualTo(1);
        assertThat(pool.idleCount()).isZero();
        assertThat(listener.events).containsExactly("connected", "evicted:closed-by-peer", "connected");
    }

    @Test
    void longIdleConnectionWithUnsolicitedBytesIsDiscarded() throws Exception {
        PooledConnection stale = idleConnection();
        OutputStream out = server.accepted(0).getOutputStream();
        out.write("HTTP/1.1 408 Request Timeout\r\n\r\n".getBytes());
        out.flush();
        clock.addAndGet(LONG_IDLE);

        PooledConnection connection = pool.acquire(within(Duration.ofSeconds(5)), false);

        assertThat(connection).isNotSameAs(stale);
        assertThat(stale.socket().isClosed()).isTrue();
        assertThat(listener.events).contains("evicted:closed-by-peer");
    }

    @Test
    void longIdleHealthyConnectionIsReusedWithTheProbeUndone() throws Exception {
        PooledConnection idle = idleConnection();
        idle.setReadTimeout(Duration.ofSeconds(7));
        clock.addAndGet(LONG_IDLE);

        PooledConnection connection = pool.acquire(within(Duration.ofSeconds(5)), false);

        assertThat(connection).isSameAs(idle);
        assertThat(connection.reused()).isTrue();
        assertThat(connection.socket().getSoTimeout()).isZero(); // the health check's 1 ms probe was undone
        assertThat(server.count()).isEqualTo(1);
    }

    @Test
    void aConnectionTheOriginClosedIsReplacedWellBeforeASecondsIdle() throws Exception {
        PooledConnection stale = idleConnection();
        server.accepted(0).close();
        awaitNewsSeen(stale);
        clock.addAndGet(TimeUnit.MILLISECONDS.toNanos(1)); // however short the idle: every lease looks

        PooledConnection connection = pool.acquire(within(Duration.ofSeconds(5)), false);

        assertThat(connection).isNotSameAs(stale);
        assertThat(connection.reused()).isFalse();
        assertThat(listener.events).containsExactly("connected", "evicted:closed-by-peer", "connected");
    }

    @Test
    void aRecentlyUsedQuietConnectionIsLentAgain() throws Exception {
        PooledConnection idle = idleConnection();
        clock.addAndGet(TimeUnit.MILLISECONDS.toNanos(1));

        PooledConnection connection = pool.acquire(within(Duration.ofSeconds(5)), false);

        assertThat(connection).isSameAs(idle);
        assertThat(connection.reused()).isTrue();
        assertThat(listener.events).containsExactly("connected", "reused");
    }

    /**
     * An origin that writes an unasked-for answer on a connection the pool holds idle (a second response after a good
     * one): the next lease must not lend it however soon, or the next request takes that answer and its own answer
     * waits for the request after it, a shift that goes on while leases come closer together than the check's
     * threshold (journal 2026-12-01-s56-hostile7).
     */
    @Test
    void aRecentlyUsedConnectionWithUnsolicitedBytesIsDiscarded() throws Exception {
        PooledConnection stale = idleConnection();
        OutputStream out = server.accepted(0).getOutputStream();
        out.write("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nEVIL!".getBytes());
        out.flush();
        awaitNewsSeen(stale);
        clock.addAndGet(TimeUnit.MILLISECONDS.toNanos(1));

        PooledConnection connection = pool.acquire(within(Duration.ofSeconds(5)), false);

        assertThat(connection).isNotSameAs(stale);
        assertThat(listener.events).contains("evicted:closed-by-peer");
    }

    /**
     * Until the socket's own readiness flags show what the origin did (the epoll transport's poller sets them a moment
     * after the kernel has it; the JDK's sockets read the kernel at the lease and need no wait).
     */
    static void awaitNewsSeen(PooledConnection c) {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (c.raw() instanceof io.loomgate.threads.QuietCheck q && !q.mayHaveNews()) {
            assertThat(System.nanoTime() - end).as("the poller saw the origin's close").isNegative();
            java.util.concurrent.locks.LockSupport.parkNanos(1_000_000);
        }
    }

    @Test
    void connectionClosedLocallyIsDiscardedWithoutTheTimedRead() throws Exception {
        PooledConnection closed = idleConnection();
        closed.socket().close();
        clock.addAndGet(TimeUnit.MILLISECONDS.toNanos(1));

        PooledConnection connection = pool.acquire(within(Duration.ofSeconds(5)), false);

        assertThat(connection).isNotSameAs(closed);
        assertThat(listener.events).containsExactly("connected", "evicted:closed-by-peer", "connected");
    }

    /**
     * The lease check runs on every lease of a plain connection (W2's, W8's origin side: one per request), so it makes
     * nothing of its own per call: a buffer for its one-byte read was 68 B a request (session 60). Leased back to back
     * (no idle): the JDK's sockets read every time; epoll's (the subclass) read only when the poller saw an edge.
     */
    @Test
    void aQuietConnectionsLeaseCheckMakesNothingPerCall() throws Exception {
        PooledConnection idle = idleConnection();
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean)
                java.lang.management.ManagementFactory.getThreadMXBean();
        int rounds = 10_000;
        assertThat(idle.isHealthy(0)).isTrue(); // classes loaded, the first probe's own buffer made
        long before = mx.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < rounds; i++) {
            if (!idle.isHealthy(0)) {
                throw new AssertionError("probe " + i + " found the quiet connection unhealthy");
            }
        }
        // under 8 B, not 0: a one-time allocation during the loop (the JIT) must not fail it
        assertThat((mx.getCurrentThreadAllocatedBytes() - before) / rounds).as("bytes per lease check").isLessThan(8);
    }

    private PooledConnection idleConnection() throws Exception {
        PooledConnection connection = pool.acquire(within(Duration.ofSeconds(5)), false);
        server.awaitCount(1);
        pool.release(connection);
        return connection;
    }
}
