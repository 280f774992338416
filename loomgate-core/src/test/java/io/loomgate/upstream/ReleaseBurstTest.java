package io.loomgate.upstream;

import static io.loomgate.upstream.TestPools.within;
import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.CountingServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Requests that wait on a slow origin together (W9: 2,000 streams on a 100 ms origin) release their connections
 * together. With the default settings the pool keeps the whole burst, so the next burst reuses it instead of dialling
 * again; with max-idle 1,024 (the default before) the surplus was closed and dialled anew every 100 ms.
 */
class ReleaseBurstTest {
    private static final int BURST = 1_500; // over the old default's 1,024, well under max-connections

    @Test
    void aBurstOfReleasesWithTheDefaultSettingsIsKeptForTheNextBurst() throws Exception {
        PoolSettings defaults = PoolSettings.DEFAULTS;
        RecordingPoolListener listener = new RecordingPoolListener();
        try (CountingServer server = new CountingServer()) {
            UpstreamPool pool = TestPools.pool(server, defaults, listener, new AtomicLong());
            List<PooledConnection> burst = acquire(pool, BURST);
            burst.forEach(pool::release);
            assertThat(pool.idleCount()).isEqualTo(BURST);

            List<PooledConnection> next = acquire(pool, BURST);
            assertThat(next).allMatch(PooledConnection::reused);
            assertThat(listener.events.stream().filter("connected"::equals)).hasSize(BURST);
            assertThat(listener.events).doesNotContain("evicted:over-max-idle");
            next.forEach(pool::release);
            pool.close();
        }
    }

    private static List<PooledConnection> acquire(UpstreamPool pool, int n) throws Exception {
        List<PooledConnection> connections = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            connections.add(pool.acquire(within(Duration.ofSeconds(30)), false));
        }
        return connections;
    }
}
