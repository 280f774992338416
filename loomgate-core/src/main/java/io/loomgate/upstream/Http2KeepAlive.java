package io.loomgate.upstream;

import java.time.Duration;
import java.util.Objects;

/**
 * The PING keep-alive of upstream HTTP/2 connections ({@code upstream.http2-keepalive-interval} and
 * {@code -timeout}; Envoy's {@code connection_keepalive}, grpc-java's {@code keepAliveTime}/{@code keepAliveTimeout}).
 *
 * @param interval a PING goes out after the connection was silent this long; zero turns the keep-alive off
 * @param timeout  nothing read within this after a PING closes the connection; positive
 */
public record Http2KeepAlive(Duration interval, Duration timeout) {
    /** 30 s of silence, 20 s for the answer (grpc-java's keepAliveTimeout default). */
    public static final Http2KeepAlive DEFAULTS = new Http2KeepAlive(Duration.ofSeconds(30), Duration.ofSeconds(20));
    /**
     * The longest interval backing off may reach: gRPC servers allow a PING every two hours on a connection without
     * calls (grpc-go's and grpc-java's default enforcement), and doubling stops there.
     */
    public static final Duration MAX_INTERVAL = Duration.ofHours(2);

    public Http2KeepAlive {
        Objects.requireNonNull(interval, "interval");
        Objects.requireNonNull(timeout, "timeout");
        if (interval.isNegative()) {
            throw new IllegalArgumentException("http2-keepalive-interval must not be negative, not " + interval);
        }
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("http2-keepalive-timeout must be positive, not " + timeout);
        }
    }

    /** Whether PINGs are sent at all. */
    public boolean enabled() {
        return !interval.isZero();
    }
}
