package io.loomgate.server;

import io.loomgate.http.HttpLimits;
import io.loomgate.http2.Http2Settings;
import io.loomgate.threads.LingeringClose;
import java.time.Duration;

/**
 * How a listener accepts and serves connections.
 *
 * @param address        bind address
 * @param port           TCP port, 0 for an ephemeral one
 * @param backlog        accept queue length asked of the OS (capped by net.core.somaxconn)
 * @param maxConnections most client connections open at once; beyond it new connections wait in the backlog
 * @param headerTimeout  longest time to receive a whole request head once its first byte arrived (408 after)
 * @param idleTimeout    longest wait for the next request on a keep-alive connection (closed quietly after)
 * @param readTimeout    longest wait for any single read of a request body, or write progress (connection aborted)
 * @param limits         request head limits
 * @param http2          HTTP/2 (h2c with prior knowledge) on this listener; disabled by default
 * @param underscoresInHeaders whether request fields with '_' in their names are kept; false drops them
 *                       ({@link UnderscoreFields})
 * @param lingerTimeout  longest time a connection that ends while its client may still be sending reads and throws
 *                       away what comes (HTTP/1.1's lingering close, HTTP/2's after a GOAWAY for an error, an HTTP/2
 *                       stream's rest after an early answer) and a keep-alive drain of a request's rest (its own 5 s
 *                       if shorter); {@link LingeringClose#TOTAL} by default
 */
public record ListenerSettings(String address, int port, int backlog, int maxConnections, Duration headerTimeout,
                               Duration idleTimeout, Duration readTimeout, HttpLimits limits, Http2Settings http2,
                               boolean underscoresInHeaders, Duration lingerTimeout) {

    /** The default linger ({@link LingeringClose#TOTAL}). */
    public ListenerSettings(String address, int port, int backlog, int maxConnections, Duration headerTimeout,
                            Duration idleTimeout, Duration readTimeout, HttpLimits limits, Http2Settings http2,
                            boolean underscoresInHeaders) {
        this(address, port, backlog, maxConnections, headerTimeout, idleTimeout, readTimeout, limits, http2,
                underscoresInHeaders, LingeringClose.TOTAL);
    }

    /** HTTP/1.1 only; request fields with underscores in their names dropped (the default). */
    public ListenerSettings(String address, int port, int backlog, int maxConnections, Duration headerTimeout,
                            Duration idleTimeout, Duration readTimeout, HttpLimits limits) {
        this(address, port, backlog, maxConnections, headerTimeout, idleTimeout, readTimeout, limits,
                Http2Settings.DISABLED, false);
    }

    /**
     * The one place these defaults are written: 0.0.0.0:8080, backlog 10,000, 10,000 connections, 10 s for a head,
     * 60 s idle, 60 s per read or write, 10 s of lingering close. An empty {@code server:} section of the gateway's
     * configuration means these.
     * The backlog is max-connections, as HAProxy's is its maxconn: when every allowed client reconnects at once (a
     * restart, a load balancer's failover, a benchmark's next run) they all fit the accept queue, where a shorter
     * one makes the kernel drop SYNs and handshake ACKs and the clients wait out TCP's retransmissions (1 s, 3 s,
     * 7 s...). The kernel caps it at {@code net.core.somaxconn}; {@link ListenBacklog} says so at startup.
     */
    public static final ListenerSettings DEFAULTS = new ListenerSettings("0.0.0.0", 8080, 10_000, 10_000,
            Duration.ofSeconds(10), Duration.ofSeconds(60), Duration.ofSeconds(60), HttpLimits.DEFAULTS);

    public ListenerSettings withPort(int newPort) {
        return new ListenerSettings(address, newPort, backlog, maxConnections, headerTimeout, idleTimeout,
                readTimeout, limits, http2, underscoresInHeaders, lingerTimeout);
    }

    /** The defaults, listening on this address and port. */
    public static ListenerSettings defaults(String address, int port) {
        return DEFAULTS.at(address, port);
    }

    public ListenerSettings withHttp2(Http2Settings newHttp2) {
        return new ListenerSettings(address, port, backlog, maxConnections, headerTimeout, idleTimeout,
                readTimeout, limits, newHttp2, underscoresInHeaders, lingerTimeout);
    }

    /** These settings, listening on another address and port. */
    public ListenerSettings at(String newAddress, int newPort) {
        return new ListenerSettings(newAddress, newPort, backlog, maxConnections, headerTimeout, idleTimeout,
                readTimeout, limits, http2, underscoresInHeaders, lingerTimeout);
    }
}
