package io.loomgate.upstream;

import io.loomgate.http.HttpLimits;
import io.loomgate.tls.ClientTls;
import java.time.Duration;
import java.util.Objects;

/**
 * Per-endpoint pool limits.
 *
 * @param maxConnections most connections open to one endpoint (idle + in use + being dialled); acquire waits beyond
 *                       it. At least 1; default 4096.
 * @param maxIdle        most idle connections kept; more are closed on release. 0 disables reuse; default 1024.
 * @param idleTimeout    an idle connection older than this is closed. Positive; default 60 s.
 * @param connectTimeout how long a TCP connect may take. Positive; default 2 s.
 * @param limits         limits on response heads read from the origin
 * @param tls            TLS to {@code https://} endpoints ({@code upstream.ssl}); null: the JDK's trust store only
 */
public record PoolSettings(int maxConnections, int maxIdle, Duration idleTimeout, Duration connectTimeout,
                           HttpLimits limits, ClientTls tls) {
    public static final PoolSettings DEFAULTS = new PoolSettings(4096, 1024, Duration.ofSeconds(60),
            Duration.ofSeconds(2), HttpLimits.DEFAULTS);

    public PoolSettings(int maxConnections, int maxIdle, Duration idleTimeout, Duration connectTimeout,
                        HttpLimits limits) {
        this(maxConnections, maxIdle, idleTimeout, connectTimeout, limits, null);
    }

    public PoolSettings withTls(ClientTls clientTls) {
        return new PoolSettings(maxConnections, maxIdle, idleTimeout, connectTimeout, limits, clientTls);
    }

    public PoolSettings {
        Objects.requireNonNull(idleTimeout, "idleTimeout");
        Objects.requireNonNull(connectTimeout, "connectTimeout");
        Objects.requireNonNull(limits, "limits");
        if (maxConnections < 1) {
            throw new IllegalArgumentException("max-connections must be at least 1, not " + maxConnections);
        }
        if (maxIdle < 0) {
            throw new IllegalArgumentException("max-idle must not be negative, not " + maxIdle);
        }
        if (idleTimeout.isNegative() || idleTimeout.isZero()) {
            throw new IllegalArgumentException("idle-timeout must be positive, not " + idleTimeout);
        }
        if (connectTimeout.isNegative() || connectTimeout.isZero()) {
            throw new IllegalArgumentException("connect-timeout must be positive, not " + connectTimeout);
        }
    }
}
