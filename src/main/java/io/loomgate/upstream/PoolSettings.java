package io.loomgate.upstream;

import io.loomgate.http.HttpLimits;
import java.time.Duration;

/**
 * Per-endpoint pool limits.
 *
 * @param maxConnections most connections open to one endpoint (idle + in use); acquire waits beyond it
 * @param maxIdle        most idle connections kept; more are closed on release
 * @param idleTimeout    an idle connection older than this is closed
 * @param connectTimeout how long a TCP connect may take
 * @param limits         limits on response heads read from the origin
 */
public record PoolSettings(int maxConnections, int maxIdle, Duration idleTimeout, Duration connectTimeout,
                           HttpLimits limits) {
    public static final PoolSettings DEFAULTS = new PoolSettings(4096, 1024, Duration.ofSeconds(60),
            Duration.ofSeconds(2), HttpLimits.DEFAULTS);
}
