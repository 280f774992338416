package io.loomgate.config;

import io.loomgate.http.Cidr;
import io.loomgate.http.FieldNamePatterns;
import io.loomgate.http2.Http2Settings;
import io.loomgate.ratelimit.RedisSettings;
import io.loomgate.server.ListenerSettings;
import io.loomgate.server.Transport;
import io.loomgate.threads.ThreadModel;
import io.loomgate.tls.ClientTlsSettings;
import io.loomgate.tls.ServerTlsSettings;
import io.loomgate.upstream.PoolSettings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * A whole gateway configuration, validated. Built by {@link ConfigLoader}; turned into runtime objects by
 * {@link GatewayAssembly}.
 *
 * @param source           the file it came from (null for one built in code)
 * @param server           the client-facing listener
 * @param admin            the admin listener
 * @param accessLog        the access log
 * @param upstreamDefaults pool limits applied to every endpoint (a named upstream's {@code pool:} may override them)
 * @param upstreams        the {@code upstreams:} section: named services routes reference by {@code uri: lb://NAME},
 *                         by name in file order
 * @param routes           in file order
 * @param redis            the shared Redis of {@code RequestRateLimiter}'s {@code store: redis}; null when none
 * @param tls              the {@code ssl:} sections and the https redirect port
 * @param logging          the application log's format and levels
 * @param tracing          the {@code tracing:} section (OpenTelemetry spans, off by default)
 */
public record GatewayConfig(Path source, ServerSpec server, AdminSpec admin, AccessLogSpec accessLog,
                            PoolSettings upstreamDefaults, Map<String, UpstreamSpec> upstreams,
                            List<RouteSpec> routes, RedisSettings redis, TlsSpec tls, LoggingSpec logging,
                            TracingSpec tracing) {

    public GatewayConfig {
        upstreams = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(upstreams));
    }

    /** A configuration without a {@code tracing:} section. */
    public GatewayConfig(Path source, ServerSpec server, AdminSpec admin, AccessLogSpec accessLog,
                         PoolSettings upstreamDefaults, Map<String, UpstreamSpec> upstreams,
                         List<RouteSpec> routes, RedisSettings redis, TlsSpec tls, LoggingSpec logging) {
        this(source, server, admin, accessLog, upstreamDefaults, upstreams, routes, redis, tls, logging,
                TracingSpec.OFF);
    }

    /** A configuration without an {@code upstreams:} section. */
    public GatewayConfig(Path source, ServerSpec server, AdminSpec admin, AccessLogSpec accessLog,
                         PoolSettings upstreamDefaults, List<RouteSpec> routes, RedisSettings redis, TlsSpec tls,
                         LoggingSpec logging) {
        this(source, server, admin, accessLog, upstreamDefaults, Map.of(), routes, redis, tls, logging);
    }

    /** A configuration without a Redis and without TLS. */
    public GatewayConfig(Path source, ServerSpec server, AdminSpec admin, AccessLogSpec accessLog,
                         PoolSettings upstreamDefaults, List<RouteSpec> routes) {
        this(source, server, admin, accessLog, upstreamDefaults, routes, null, TlsSpec.NONE, LoggingSpec.DEFAULT);
    }

    /** A configuration without TLS. */
    public GatewayConfig(Path source, ServerSpec server, AdminSpec admin, AccessLogSpec accessLog,
                         PoolSettings upstreamDefaults, List<RouteSpec> routes, RedisSettings redis) {
        this(source, server, admin, accessLog, upstreamDefaults, routes, redis, TlsSpec.NONE, LoggingSpec.DEFAULT);
    }

    /** A configuration without a {@code logging:} section (text log, the default logging configuration's levels). */
    public GatewayConfig(Path source, ServerSpec server, AdminSpec admin, AccessLogSpec accessLog,
                         PoolSettings upstreamDefaults, List<RouteSpec> routes, RedisSettings redis, TlsSpec tls) {
        this(source, server, admin, accessLog, upstreamDefaults, routes, redis, tls, LoggingSpec.DEFAULT);
    }

    /** The same configuration with other server and admin settings, keeping the rest (command-line overrides). */
    public GatewayConfig with(ServerSpec newServer, AdminSpec newAdmin) {
        return new GatewayConfig(source, newServer, newAdmin, accessLog, upstreamDefaults, upstreams, routes, redis,
                tls, logging, tracing);
    }

    /**
     * TLS: {@code server.ssl}, {@code server.http-redirect-port}, {@code admin.ssl}, {@code upstream.ssl}.
     *
     * @param server           the client listener's TLS, or null for plain HTTP
     * @param httpRedirectPort a plain port answering 308 to https (0: none)
     * @param admin            the admin listener's TLS, or null for plain HTTP
     * @param upstream         TLS to https:// origins (always present: the defaults verify against the JDK's store)
     */
    public record TlsSpec(ServerTlsSettings server, int httpRedirectPort, ServerTlsSettings admin,
                          ClientTlsSettings upstream) {
        public static final TlsSpec NONE = new TlsSpec(null, 0, null, ClientTlsSettings.DEFAULTS);
    }

    /**
     * The {@code server:} section: the client listener's settings, composed (each listener key is a component of
     * {@link ListenerSettings}, read as {@code server().listener().port()}), and what the gateway around the listener
     * needs besides.
     *
     * @param listener       address, port, backlog, max-connections, the timeouts, head limits, {@code http2} and
     *                       {@code underscores-in-headers}
     * @param threads        thread model ({@code platform-threads} sizes a platform pool)
     * @param drainTimeout   graceful shutdown on SIGTERM
     * @param trustedProxies peers whose forwarding headers are appended to rather than replaced
     * @param stripRequestHeaders fields removed from requests whose peer is not a trusted proxy, before routing
     * @param transport      {@code server.transport}: the listener's sockets (jdk by default; auto, epoll)
     */
    public record ServerSpec(ListenerSettings listener, ThreadModel threads, Duration drainTimeout,
                             List<Cidr> trustedProxies, FieldNamePatterns stripRequestHeaders, Transport transport) {

        /**
         * The one place the defaults of the {@code server:} section are written (no section and an empty one both
         * mean these; docs/configuration.md lists them, and {@code ServerDefaultsTest} checks it does): the
         * listener's own {@link ListenerSettings#DEFAULTS} with HTTP/2 on (issue 12: on in a configuration file, off
         * for a listener made in code), virtual threads, a 30 s drain, no trusted proxies, and
         * {@link FieldNamePatterns#STRIPPED_BY_DEFAULT}.
         */
        public static final ServerSpec DEFAULTS = new ServerSpec(
                ListenerSettings.DEFAULTS.withHttp2(Http2Settings.enabledDefaults()), ThreadModel.VIRTUAL,
                Duration.ofSeconds(30), List.of(), FieldNamePatterns.STRIPPED_BY_DEFAULT, Transport.JDK);

        public ServerSpec {
            java.util.Objects.requireNonNull(listener, "listener");
            java.util.Objects.requireNonNull(transport, "transport");
            trustedProxies = List.copyOf(trustedProxies);
        }

        /** On the JDK's sockets. */
        public ServerSpec(ListenerSettings listener, ThreadModel threads, Duration drainTimeout,
                          List<Cidr> trustedProxies, FieldNamePatterns stripRequestHeaders) {
            this(listener, threads, drainTimeout, trustedProxies, stripRequestHeaders, Transport.JDK);
        }

        /** This spec on another transport. */
        public ServerSpec withTransport(Transport newTransport) {
            return new ServerSpec(listener, threads, drainTimeout, trustedProxies, stripRequestHeaders, newTransport);
        }

        /** This spec with another port and thread model (the command line's overrides). */
        public ServerSpec with(int newPort, ThreadModel newThreads) {
            return new ServerSpec(listener.withPort(newPort), newThreads, drainTimeout, trustedProxies,
                    stripRequestHeaders, transport);
        }
    }

    /**
     * The {@code admin:} section: default 127.0.0.1:9977; port 0 turns it off. {@code pinnedThreshold} is the
     * shortest pinned virtual-thread block reported at /pinned (default 20ms). {@code authToken} (null: none) is
     * asked of every admin request but the probes; {@code allowedHosts} are the Host names the admin listener answers
     * besides IP literals, {@code localhost} and its bind address; {@code probePath} (null: off) is where the main
     * listener also answers {@code <probePath>/live} and {@code <probePath>/ready}.
     */
    public record AdminSpec(String address, int port, Duration pinnedThreshold, String authToken,
                            List<String> allowedHosts, String probePath) {
        public static final AdminSpec DEFAULTS = new AdminSpec("127.0.0.1", 9977, Duration.ofMillis(20));

        public AdminSpec {
            allowedHosts = List.copyOf(allowedHosts);
        }

        public AdminSpec(String address, int port, Duration pinnedThreshold) {
            this(address, port, pinnedThreshold, null, List.of(), null);
        }

        public AdminSpec withPort(int newPort) {
            return new AdminSpec(address, newPort, pinnedThreshold, authToken, allowedHosts, probePath);
        }

        public boolean enabled() {
            return port != 0;
        }

        /** Never prints the token: configurations are logged and compared in messages. */
        @Override
        public String toString() {
            return "AdminSpec[address=" + address + ", port=" + port + ", pinnedThreshold=" + pinnedThreshold
                    + ", authToken=" + (authToken == null ? "none" : "(set)") + ", allowedHosts=" + allowedHosts
                    + ", probePath=" + probePath + "]";
        }
    }

    /** The {@code access-log:} section: enabled (default true), format {@code combined} (default) or {@code json}. */
    public record AccessLogSpec(boolean enabled, String format) {
        public static final AccessLogSpec DEFAULTS = new AccessLogSpec(true, "combined");
    }

    /**
     * The {@code logging:} section: {@code format} {@code text} (default) or {@code json} (one JSON object per line,
     * for log shippers), and {@code levels}, logger name (a package such as {@code io.loomgate.upstream}, or
     * {@code root}) to level ({@code trace}, {@code debug}, {@code info}, {@code warn}, {@code error}, {@code off}).
     */
    public record LoggingSpec(String format, Map<String, String> levels) {
        public static final LoggingSpec DEFAULT = new LoggingSpec("text", Map.of());

        public LoggingSpec {
            levels = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(levels));
        }
    }

    /**
     * The {@code tracing:} section (OpenTelemetry spans over OTLP HTTP/protobuf; the module loomgate-tracing):
     * {@code enabled} (default false), {@code endpoint} (default {@code http://localhost:4318/v1/traces}),
     * {@code sampler} (the parent-based sampler's ratio for traces that start here, default 1.0),
     * {@code service-name} (default {@code loomgate}), {@code queue-size} (spans waiting for export, default 2048).
     */
    public record TracingSpec(boolean enabled, String endpoint, double sampler, String serviceName, int queueSize) {
        public static final TracingSpec OFF = new TracingSpec(false, "http://localhost:4318/v1/traces", 1.0,
                "loomgate", 2048);
    }
}
