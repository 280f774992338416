package io.loomgate.upstream;

import static io.loomgate.upstream.TestPools.within;
import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.CountingServer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * A pool asks its listener for the action of a reuse once, when it is made, and runs that action on every reuse:
 * a listener that keeps state per endpoint (the metrics) finds it once, not per request. Against a real socket.
 */
class PoolReuseActionTest {
    @Test
    void thePoolAsksForItsReuseActionOnceAndRunsItOnEveryReuse() throws Exception {
        AtomicInteger ran = new AtomicInteger();
        List<Endpoint> askedFor = new CopyOnWriteArrayList<>();
        PoolListener listener = new PoolListener() {
            @Override
            public void reused(Endpoint endpoint) {
                throw new AssertionError("the pool runs the action it was given, not reused()");
            }

            @Override
            public Runnable reuseAction(Endpoint endpoint) {
                askedFor.add(endpoint);
                return ran::incrementAndGet;
            }
        };
        try (CountingServer server = new CountingServer()) {
            UpstreamPool pool = TestPools.pool(server, TestPools.settings(10, 10), listener, new AtomicLong());
            try {
                assertThat(askedFor).containsExactly(new Endpoint(server.host(), server.port()));
                for (int i = 0; i < 4; i++) {
                    PooledConnection c = pool.acquire(within(Duration.ofSeconds(5)), false);
                    assertThat(c.reused()).isEqualTo(i > 0);
                    pool.release(c);
                }
                assertThat(pool.connectCount()).isEqualTo(1);
                assertThat(ran).hasValue(3);
                assertThat(pool.reuseCount()).isEqualTo(3);
                assertThat(askedFor).hasSize(1);
            } finally {
                pool.close();
            }
        }
    }
}
