package io.loomgate.upstream;

import static io.loomgate.upstream.TestPools.within;
import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.http.HttpLimits;
import io.loomgate.testkit.CountingServer;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** cleanup(now) closes idle connections at the idle timeout and says when to run next; release enforces max-idle. */
class IdleEvictionTest {
    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);
    private static final long TIMEOUT = 100 * MS;

    private final AtomicLong clock = new AtomicLong(1_000 * MS); // any origin: nanoTime may be negative or large
    private final RecordingPoolListener listener = new RecordingPoolListener();
    private CountingServer server;
    private UpstreamPool pool;

    @BeforeEach
    void start() throws Exception {
        server = new CountingServer();
        PoolSettings settings = new PoolSettings(10, 2, Duration.ofNanos(TIMEOUT), Duration.ofSeconds(2),
                HttpLimits.DEFAULTS);
        pool = TestPools.pool(server, settings, listener, clock);
    }

    @AfterEach
    void stop() throws Exception {
        pool.close();
        server.close();
    }

    @Test
    void idleConnectionIsClosedExactlyAtTheIdleTimeout() throws Exception {
        long t0 = clock.get();
        PooledConnection a = acquire();
        pool.release(a); // idle since t0

        assertThat(pool.cleanup(t0 + 50 * MS)).isEqualTo(50 * MS);
        assertThat(pool.cleanup(t0 + TIMEOUT - 1)).isEqualTo(1);
        assertThat(pool.idleCount()).isEqualTo(1);
        assertThat(a.socket().isClosed()).isFalse();

        assertThat(pool.cleanup(t0 + TIMEOUT)).isEqualTo(TIMEOUT); // nothing idle left: a full timeout
        assertThat(pool.idleCount()).isZero();
        assertThat(a.socket().isClosed()).isTrue();
        assertThat(listener.events).containsExactly("connected", "evicted:idle-timeout");
    }

    @Test
    void nextDelayFollowsTheOldestRemainingConnection() throws Exception {
        long t0 = clock.get();
        PooledConnection a = acquire();
        PooledConnection b = acquire();
        pool.release(a); // idle since t0
        clock.set(t0 + 30 * MS);
        pool.release(b); // idle since t0 + 30

        assertThat(pool.cleanup(t0 + 60 * MS)).isEqualTo(40 * MS);
        assertThat(pool.cleanup(t0 + 100 * MS)).isEqualTo(30 * MS);
        assertThat(a.socket().isClosed()).isTrue();
        assertThat(b.socket().isClosed()).isFalse();
        assertThat(pool.idleCount()).isEqualTo(1);

        assertThat(pool.cleanup(t0 + 130 * MS)).isEqualTo(TIMEOUT);
        assertThat(b.socket().isClosed()).isTrue();
    }

    @Test
    void reuseRestartsTheIdleClock() throws Exception {
        long t0 = clock.get();
        pool.release(acquire());
        clock.set(t0 + 90 * MS);
        PooledConnection again = acquire();
        assertThat(again.reused()).isTrue();
        pool.release(again); // idle since t0 + 90

        assertThat(pool.cleanup(t0 + 100 * MS)).isEqualTo(90 * MS);
        assertThat(pool.idleCount()).isEqualTo(1);
    }

    @Test
    void nothingIdleMeansRunAgainAfterOneTimeout() {
        assertThat(pool.cleanup(clock.get())).isEqualTo(TIMEOUT);
    }

    @Test
    void releaseBeyondMaxIdleClosesTheConnection() throws Exception {
        PooledConnection a = acquire();
        PooledConnection b = acquire();
        PooledConnection c = acquire();
        pool.release(a);
        pool.release(b);

        pool.release(c);

        assertThat(pool.idleCount()).isEqualTo(2);
        assertThat(pool.inUseCount()).isZero();
        assertThat(c.socket().isClosed()).isTrue();
        assertThat(a.socket().isClosed()).isFalse();
        assertThat(listener.events).endsWith("evicted:over-max-idle");
    }

    private PooledConnection acquire() throws Exception {
        return pool.acquire(within(Duration.ofSeconds(5)), false);
    }
}
