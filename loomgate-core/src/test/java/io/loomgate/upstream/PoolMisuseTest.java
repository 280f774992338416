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

/** A connection goes back exactly once, to its own pool; anything else is a bug named in the exception. */
class PoolMisuseTest {
    private final AtomicLong clock = new AtomicLong();
    private final RecordingPoolListener listener = new RecordingPoolListener();
    private CountingServer server;
    private UpstreamPool pool;
    private String name;

    @BeforeEach
    void start() throws Exception {
        server = new CountingServer();
        pool = TestPools.pool(server, TestPools.settings(10, 10), listener, clock);
        name = "connection #1 to " + server.host() + ":" + server.port();
    }

    @AfterEach
    void stop() throws Exception {
        pool.close();
        server.close();
    }

    @Test
    void releasingTwiceIsRefused() throws Exception {
        PooledConnection connection = acquire();
        pool.release(connection);

        assertThatThrownBy(() -> pool.release(connection))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("cannot release " + name + ": it is IDLE, not IN_USE (released or discarded twice?)");
        assertThat(pool.idleCount()).isEqualTo(1);
        assertThat(pool.inUseCount()).isZero();
    }

    @Test
    void releaseAfterDiscardIsRefused() throws Exception {
        PooledConnection connection = acquire();
        pool.discard(connection);

        assertThatThrownBy(() -> pool.release(connection))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("cannot release " + name + ": it is CLOSED, not IN_USE (released or discarded twice?)");
        assertThat(pool.idleCount()).isZero();
        assertThat(pool.inUseCount()).isZero();
    }

    @Test
    void discardingTwiceIsRefused() throws Exception {
        PooledConnection connection = acquire();
        pool.discard(connection);

        assertThatThrownBy(() -> pool.discard(connection))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageStartingWith("cannot discard " + name + ": it is CLOSED");
        assertThat(listener.events).containsExactly("connected", "evicted:discarded");
    }

    @Test
    void connectionFromAnotherPoolIsRefused() throws Exception {
        try (CountingServer other = new CountingServer()) {
            UpstreamPool otherPool = TestPools.pool(other, TestPools.settings(10, 10), listener, clock);
            PooledConnection foreign = otherPool.acquire(within(Duration.ofSeconds(5)), false);

            assertThatThrownBy(() -> pool.release(foreign))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessage("cannot release connection #1 to " + other.host() + ":" + other.port()
                            + " to the pool to " + server.host() + ":" + server.port()
                            + ": it belongs to another pool");
            assertThat(otherPool.inUseCount()).isEqualTo(1);
            otherPool.close();
        }
    }

    @Test
    void discardClosesTheSocketAndFreesTheSlot() throws Exception {
        PooledConnection connection = acquire();

        pool.discard(connection);

        assertThat(connection.socket().isClosed()).isTrue();
        assertThat(pool.inUseCount()).isZero();
        assertThat(pool.idleCount()).isZero();
    }

    @Test
    void closedPoolRefusesAcquireAndClosesWhatIsReleased() throws Exception {
        PooledConnection idle = acquire();
        PooledConnection lent = acquire();
        pool.release(idle);

        pool.close();

        assertThat(idle.socket().isClosed()).isTrue();
        assertThat(lent.socket().isClosed()).isFalse();
        assertThatThrownBy(this::acquire)
                .isInstanceOf(PoolExhaustedException.class)
                .hasMessageEndingWith(" is closed");
        pool.release(lent);
        assertThat(lent.socket().isClosed()).isTrue();
        assertThat(listener.events).endsWith("evicted:shutdown", "evicted:shutdown");
    }

    private PooledConnection acquire() throws Exception {
        return pool.acquire(within(Duration.ofSeconds(5)), false);
    }
}
