package io.loomgate.upstream;

import static io.loomgate.upstream.TestPools.within;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.loomgate.testkit.CountingServer;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** A released connection is lent again (most recently used first) instead of dialling; fresh=true always dials. */
class ConnectionReuseTest {
    private final AtomicLong clock = new AtomicLong();
    private final RecordingPoolListener listener = new RecordingPoolListener();
    private CountingServer server;
    private UpstreamPool pool;

    @BeforeEach
    void start() throws Exception {
        server = new CountingServer();
        pool = TestPools.pool(server, TestPools.settings(10, 10), listener, clock);
    }

    @AfterEach
    void stop() throws Exception {
        pool.close();
        server.close();
    }

    @Test
    void releasedConnectionIsLentAgainAndMarkedReused() throws Exception {
        PooledConnection first = pool.acquire(within(Duration.ofSeconds(5)), false);
        assertThat(first.reused()).isFalse();
        pool.release(first);
        assertThat(pool.idleCount()).isEqualTo(1);
        assertThat(pool.inUseCount()).isZero();

        PooledConnection second = pool.acquire(within(Duration.ofSeconds(5)), false);

        assertThat(second).isSameAs(first);
        assertThat(second.socket()).isSameAs(first.socket());
        assertThat(second.reused()).isTrue();
        assertThat(pool.inUseCount()).isEqualTo(1);
        server.awaitCount(1);
        assertThat(server.count()).isEqualTo(1);
        assertThat(pool.connectCount()).isEqualTo(1);
        assertThat(pool.reuseCount()).isEqualTo(1);
        assertThat(listener.events).containsExactly("connected", "reused");
    }

    @Test
    void mostRecentlyReleasedIsLentFirst() throws Exception {
        PooledConnection a = pool.acquire(within(Duration.ofSeconds(5)), false);
        PooledConnection b = pool.acquire(within(Duration.ofSeconds(5)), false);
        pool.release(a);
        clock.addAndGet(1);
        pool.release(b);

        assertThat(pool.acquire(within(Duration.ofSeconds(5)), false)).isSameAs(b);
        assertThat(pool.acquire(within(Duration.ofSeconds(5)), false)).isSameAs(a);
    }

    @Test
    void freshSkipsIdleConnectionsAndDials() throws Exception {
        PooledConnection first = pool.acquire(within(Duration.ofSeconds(5)), false);
        pool.release(first);

        PooledConnection fresh = pool.acquire(within(Duration.ofSeconds(5)), true);

        assertThat(fresh).isNotSameAs(first);
        assertThat(fresh.reused()).isFalse();
        assertThat(pool.idleCount()).isEqualTo(1);
        server.awaitCount(2);
        assertThat(pool.connectCount()).isEqualTo(2);
    }

    @Test
    void dialledConnectionHasNoDelayAndKeepAlive() throws Exception {
        PooledConnection connection = pool.acquire(within(Duration.ofSeconds(5)), false);

        assertThat(connection.socket().getTcpNoDelay()).isTrue();
        assertThat(connection.socket().getKeepAlive()).isTrue();
        assertThat(connection.endpoint()).isEqualTo(new Endpoint(server.host(), server.port()));
        assertThat(connection.input()).isNotNull();
        assertThat(connection.output()).isNotNull();
    }

    @Test
    void aReadTimeoutEndsABlockedReadWithoutTouchingSoTimeout() throws Exception {
        PooledConnection connection = pool.acquire(within(Duration.ofSeconds(5)), false);

        connection.setReadTimeout(Duration.ofMillis(200)); // the server never answers
        assertThatThrownBy(() -> connection.input().read(new byte[1], 0, 1))
                .isInstanceOf(java.net.SocketTimeoutException.class).hasMessageContaining("timed out");
        // enforced by the watchdog: the socket itself has no timeout, so reads park without a timer
        assertThat(connection.socket().getSoTimeout()).isZero();
    }
}
