package io.loomgate.config;

import io.loomgate.http.Cidr;
import io.loomgate.http.FieldNamePatterns;
import io.loomgate.http.HttpLimits;
import io.loomgate.http2.Http2Settings;
import io.loomgate.ratelimit.RedisSettings;
import io.loomgate.server.ListenerSettings;
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
 * @param upstreamDefaults pool limits applied to every endpoint
 * @param routes           in file order
 * @param redis            the shared Redis of {@code RequestRateLimiter}'s {@code store: redis}; null when none
 * @param tls              the {@code ssl:} sections and the https redirect port
 * @param logging          the application log's format and levels
 */
public record GatewayConfig(Path source, ServerSpec server, AdminSpec admin, AccessLogSpec accessLog,
                            PoolSettings upstreamDefaults, List<RouteSpec> routes, RedisSettings redis,
                            TlsSpec tls, LoggingSpec logging) {

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

    /** A configuration without a {@code logging:} section (text log, levels from logback.xml). */
    public GatewayConfig(Path source, ServerSpec server, AdminSpec admin, AccessLogSpec accessLog,
                         PoolSettings upstreamDefaults, List<RouteSpec> routes, RedisSettings redis, TlsSpec tls) {
        this(source, server, admin, accessLog, upstreamDefaults, routes, redis, tls, LoggingSpec.DEFAULT);
    }

    /** The same configuration with other server and admin settings, keeping the rest (command-line overrides). */
    public GatewayConfig with(ServerSpec newServer, AdminSpec newAdmin) {
        return new GatewayConfig(source, newServer, newAdmin, accessLog, upstreamDefaults, routes, redis, tls,
                logging);
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
     * The {@code server:} section.
     *
     * @param address        bind address (default 0.0.0.0)
     * @param port           default 8080
     * @param threads        thread model (default virtual; {@code platform-threads} sizes a platform pool)
     * @param maxConnections client connections open at once (default 10000)
     * @param backlog        accept backlog (default 4096)
     * @param headerTimeout  whole request head (default 10s)
     * @param idleTimeout    keep-alive idle (default 60s)
     * @param readTimeout    any single body read or write (default 60s)
     * @param drainTimeout   graceful shutdown on SIGTERM (default 30s)
     * @param trustedProxies peers whose forwarding headers are appended to rather than replaced (default none)
     * @param limits         request head limits
     * @param http2          {@code server.http2}: h2c with prior knowledge, and h2 by ALPN over TLS (on by default in a
     *                       config file; off in the programmatic constructor below)
     * @param underscoresInHeaders whether request fields with '_' in their names are kept (default false: dropped,
     *                       as nginx does, because CGI-style origins merge them with the '-' spelling)
     * @param stripRequestHeaders fields removed from requests whose peer is not a trusted proxy, before routing
     *                       (default {@link FieldNamePatterns#STRIPPED_BY_DEFAULT})
     */
    public record ServerSpec(String address, int port, ThreadModel threads, int maxConnections, int backlog,
                             Duration headerTimeout, Duration idleTimeout, Duration readTimeout,
                             Duration drainTimeout, List<Cidr> trustedProxies, HttpLimits limits,
                             Http2Settings http2, boolean underscoresInHeaders,
                             FieldNamePatterns stripRequestHeaders) {

        public ServerSpec(String address, int port, ThreadModel threads, int maxConnections, int backlog,
                          Duration headerTimeout, Duration idleTimeout, Duration readTimeout,
                          Duration drainTimeout, List<Cidr> trustedProxies, HttpLimits limits) {
            this(address, port, threads, maxConnections, backlog, headerTimeout, idleTimeout, readTimeout,
                    drainTimeout, trustedProxies, limits, Http2Settings.DISABLED, false,
                    FieldNamePatterns.STRIPPED_BY_DEFAULT);
        }

        /** An empty {@code server:} section: the listener's own defaults, virtual threads, a 30 s drain. */
        public static final ServerSpec DEFAULTS = new ServerSpec(ListenerSettings.DEFAULTS, ThreadModel.VIRTUAL,
                Duration.ofSeconds(30), List.of(), FieldNamePatterns.STRIPPED_BY_DEFAULT);

        public ServerSpec {
            trustedProxies = List.copyOf(trustedProxies);
        }

        private ServerSpec(ListenerSettings l, ThreadModel threads, Duration drainTimeout, List<Cidr> trusted,
                           FieldNamePatterns stripped) {
            this(l.address(), l.port(), threads, l.maxConnections(), l.backlog(), l.headerTimeout(), l.idleTimeout(),
                    l.readTimeout(), drainTimeout, trusted, l.limits(), l.http2(), l.underscoresInHeaders(), stripped);
        }

        /** The client listener these settings describe. */
        public ListenerSettings listener() {
            return new ListenerSettings(address, port, backlog, maxConnections, headerTimeout, idleTimeout,
                    readTimeout, limits, http2, underscoresInHeaders);
        }

        /** This spec with another port and thread model (the command line's overrides). */
        public ServerSpec with(int newPort, ThreadModel newThreads) {
            return new ServerSpec(listener().at(address, newPort), newThreads, drainTimeout, trustedProxies,
                    stripRequestHeaders);
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
}
