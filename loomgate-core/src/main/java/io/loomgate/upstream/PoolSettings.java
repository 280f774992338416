package io.loomgate.upstream;

import io.loomgate.http.HttpLimits;
import io.loomgate.http2.OriginFloodLimits;
import io.loomgate.tls.ClientTls;
import java.time.Duration;
import java.util.Objects;

/**
 * Per-endpoint pool limits.
 *
 * @param maxConnections most connections open to one endpoint (idle + in use + being dialled); acquire waits beyond
 *                       it. At least 1; default 4096.
 * @param maxIdle        most idle connections kept; more are closed on release. 0 disables reuse; default 4096, as
 *                       many as max-connections: requests that wait on their origin together come back together, and
 *                       a lower cap closed the surplus of each such burst only to dial it again for the next one
 *                       (W9: 45% of upstream requests dialled with 1024; idle-timeout bounds what is kept)
 * @param idleTimeout    an idle connection older than this is closed. Positive; default 60 s.
 * @param connectTimeout how long a TCP connect may take. Positive; default 2 s.
 * @param limits         limits on response heads read from the origin
 * @param tls            TLS to {@code https://} endpoints ({@code upstream.ssl}); null: the JDK's trust store only
 * @param http2          whether {@code https://} endpoints offer {@code h2} by ALPN ({@code upstream.http2}, default
 *                       false); {@code h2c://} endpoints speak HTTP/2 whatever this says
 * @param http2MaxConnections most HTTP/2 connections open to one endpoint; another opens only when the others carry
 *                       the origin's SETTINGS_MAX_CONCURRENT_STREAMS each. At least 1; default 8.
 * @param http2KeepAlive PING keep-alive of HTTP/2 connections; default {@link Http2KeepAlive#DEFAULTS}
 * @param http2Floods    the bounds on an HTTP/2 origin's control-frame and WINDOW_UPDATE floods
 *                       ({@code http2-max-control-frames-burst}, {@code -per-second},
 *                       {@code http2-max-window-updates-per-data-frame}); default {@link OriginFloodLimits#DEFAULTS}
 * @param dialer         opens the TCP connections on another transport ({@code server.transport: epoll}); null: the
 *                       JDK's sockets
 */
public record PoolSettings(int maxConnections, int maxIdle, Duration idleTimeout, Duration connectTimeout,
                           HttpLimits limits, ClientTls tls, boolean http2, int http2MaxConnections,
                           Http2KeepAlive http2KeepAlive, OriginFloodLimits http2Floods, Dialer dialer) {
    public static final int DEFAULT_HTTP2_MAX_CONNECTIONS = 8;
    public static final PoolSettings DEFAULTS = new PoolSettings(4096, 4096, Duration.ofSeconds(60),
            Duration.ofSeconds(2), HttpLimits.DEFAULTS);

    public PoolSettings(int maxConnections, int maxIdle, Duration idleTimeout, Duration connectTimeout,
                        HttpLimits limits) {
        this(maxConnections, maxIdle, idleTimeout, connectTimeout, limits, null);
    }

    /** On the JDK's sockets. */
    public PoolSettings(int maxConnections, int maxIdle, Duration idleTimeout, Duration connectTimeout,
                        HttpLimits limits, ClientTls tls, boolean http2, int http2MaxConnections,
                        Http2KeepAlive http2KeepAlive) {
        this(maxConnections, maxIdle, idleTimeout, connectTimeout, limits, tls, http2, http2MaxConnections,
                http2KeepAlive, OriginFloodLimits.DEFAULTS, null);
    }

    public PoolSettings(int maxConnections, int maxIdle, Duration idleTimeout, Duration connectTimeout,
                        HttpLimits limits, ClientTls tls) {
        this(maxConnections, maxIdle, idleTimeout, connectTimeout, limits, tls, false, DEFAULT_HTTP2_MAX_CONNECTIONS,
                Http2KeepAlive.DEFAULTS);
    }

    /** These settings reading response heads within other limits (the {@code server:} section's). */
    public PoolSettings withLimits(HttpLimits headLimits) {
        return new PoolSettings(maxConnections, maxIdle, idleTimeout, connectTimeout, headLimits, tls, http2,
                http2MaxConnections, http2KeepAlive, http2Floods, dialer);
    }

    public PoolSettings withTls(ClientTls clientTls) {
        return new PoolSettings(maxConnections, maxIdle, idleTimeout, connectTimeout, limits, clientTls, http2,
                http2MaxConnections, http2KeepAlive, http2Floods, dialer);
    }

    /** These settings with {@code upstream.http2} and {@code upstream.http2-max-connections}. */
    public PoolSettings withHttp2(boolean offerH2, int maxHttp2Connections) {
        return new PoolSettings(maxConnections, maxIdle, idleTimeout, connectTimeout, limits, tls, offerH2,
                maxHttp2Connections, http2KeepAlive, http2Floods, dialer);
    }

    /** These settings with {@code upstream.http2-keepalive-interval} and {@code -timeout}. */
    public PoolSettings withHttp2KeepAlive(Http2KeepAlive keepAlive) {
        return new PoolSettings(maxConnections, maxIdle, idleTimeout, connectTimeout, limits, tls, http2,
                http2MaxConnections, keepAlive, http2Floods, dialer);
    }

    /** These settings with {@code upstream.http2-max-control-frames-*} and {@code -window-updates-per-data-frame}. */
    public PoolSettings withHttp2Floods(OriginFloodLimits floods) {
        return new PoolSettings(maxConnections, maxIdle, idleTimeout, connectTimeout, limits, tls, http2,
                http2MaxConnections, http2KeepAlive, floods, dialer);
    }

    /** These settings dialling with {@code transportDialer} (null: the JDK's sockets). */
    public PoolSettings withDialer(Dialer transportDialer) {
        return new PoolSettings(maxConnections, maxIdle, idleTimeout, connectTimeout, limits, tls, http2,
                http2MaxConnections, http2KeepAlive, http2Floods, transportDialer);
    }

    /** These settings with another connect timeout (a health check's). */
    public PoolSettings withConnectTimeout(Duration timeout) {
        return new PoolSettings(maxConnections, maxIdle, idleTimeout, timeout, limits, tls, http2,
                http2MaxConnections, http2KeepAlive, http2Floods, dialer);
    }

    public PoolSettings {
        Objects.requireNonNull(idleTimeout, "idleTimeout");
        Objects.requireNonNull(connectTimeout, "connectTimeout");
        Objects.requireNonNull(limits, "limits");
        Objects.requireNonNull(http2KeepAlive, "http2KeepAlive");
        Objects.requireNonNull(http2Floods, "http2Floods");
        if (maxConnections < 1) {
            throw new IllegalArgumentException("max-connections must be at least 1, not " + maxConnections);
        }
        if (http2MaxConnections < 1) {
            throw new IllegalArgumentException("http2-max-connections must be at least 1, not " + http2MaxConnections);
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
