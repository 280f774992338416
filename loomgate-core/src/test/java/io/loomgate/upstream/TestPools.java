package io.loomgate.upstream;

import io.loomgate.http.HttpLimits;
import io.loomgate.testkit.CountingServer;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/** Pools for tests: against a {@link CountingServer}, on a clock the test steps. */
final class TestPools {
    static final Duration IDLE_TIMEOUT = Duration.ofSeconds(60);

    private TestPools() {
    }

    static PoolSettings settings(int maxConnections, int maxIdle) {
        return new PoolSettings(maxConnections, maxIdle, IDLE_TIMEOUT, Duration.ofSeconds(2), HttpLimits.DEFAULTS);
    }

    static UpstreamPool pool(CountingServer server, PoolSettings settings, PoolListener listener, AtomicLong clock) {
        Endpoint endpoint = new Endpoint(server.host(), server.port());
        return new UpstreamPool(new Connector(endpoint, settings, listener), settings, listener, clock::get);
    }

    /** A deadline {@code d} from now, on the clock acquire's deadline uses. */
    static long within(Duration d) {
        return System.nanoTime() + d.toNanos();
    }
}
