package io.loomgate.cli;

import io.loomgate.config.ConfigException;
import io.loomgate.config.GatewayAssembly;
import io.loomgate.config.GatewayConfig;
import io.loomgate.config.Plugins;
import io.loomgate.proxy.BoundRoutes;
import io.loomgate.proxy.ExchangeListener;
import io.loomgate.proxy.ProxyHandler;
import io.loomgate.proxy.ProxySettings;
import io.loomgate.ratelimit.RateLimitListener;
import io.loomgate.ratelimit.RateLimiting;
import io.loomgate.server.ConnectionListener;
import io.loomgate.server.HttpsRedirect;
import io.loomgate.server.Listener;
import io.loomgate.server.ListenerSettings;
import io.loomgate.threads.ConnectionExecutors;
import io.loomgate.threads.ThreadModel;
import io.loomgate.tls.ClientTls;
import io.loomgate.tls.ServerTls;
import io.loomgate.tls.TlsMaterialException;
import io.loomgate.tls.TlsReloader;
import io.loomgate.upstream.PoolListener;
import io.loomgate.upstream.UpstreamDefinition;
import io.loomgate.upstream.Upstreams;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running gateway: the composition of a validated configuration into routes, upstream pools, the proxy and the
 * client listener. Lifecycle: {@link #start} → serving → {@link #drain} (SIGTERM) or {@link #close}.
 */
public final class Gateway implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Gateway.class);
    /** How often certificate files are looked at for changes. */
    private static final Duration TLS_RELOAD_INTERVAL = Duration.ofSeconds(1);

    private final GatewayConfig config;
    private final GatewayAssembly assembly;
    private final Upstreams upstreams;
    private final Listener listener;
    private final RateLimiting rateLimiting;
    private final Listener redirect;
    private final TlsReloader reloader;

    private Gateway(GatewayConfig config, GatewayAssembly assembly, Upstreams upstreams, Listener listener,
                    RateLimiting rateLimiting, Listener redirect, TlsReloader reloader) {
        this.config = config;
        this.assembly = assembly;
        this.upstreams = upstreams;
        this.listener = listener;
        this.rateLimiting = rateLimiting;
        this.redirect = redirect;
        this.reloader = reloader;
    }

    /** Observers of a gateway, wired in by the composition root. */
    public record Observers(ExchangeListener exchanges, PoolListener pools, ConnectionListener connections,
                            RateLimitListener rateLimits) {
        public static final Observers NONE = new Observers(ExchangeListener.NOOP, PoolListener.NOOP,
                ConnectionListener.NOOP, RateLimitListener.NOOP);

        public Observers(ExchangeListener exchanges, PoolListener pools, ConnectionListener connections) {
            this(exchanges, pools, connections, RateLimitListener.NOOP);
        }
    }

    public static Gateway start(GatewayConfig config, Observers observers) throws ConfigException, IOException {
        return start(config, Plugins.NONE, observers);
    }

    /** Starts with the built-in filters and predicates plus the plugins' (and the rate limiter's). */
    public static Gateway start(GatewayConfig config, Plugins plugins, Observers observers)
            throws ConfigException, IOException {
        RateLimiting rateLimiting = new RateLimiting(config.redis(), observers.rateLimits());
        GatewayAssembly assembly;
        try {
            assembly = plugins.and(Plugins.of(List.of(rateLimiting.filterFactory()), List.of())).assemble(config);
        } catch (ConfigException | RuntimeException e) {
            rateLimiting.close();
            throw e;
        }
        TlsReloader reloader = new TlsReloader(TLS_RELOAD_INTERVAL);
        ClientTls upstreamTls;
        try {
            upstreamTls = clientTls(config, assembly, reloader);
        } catch (IOException e) {
            rateLimiting.close();
            throw e;
        }
        ClientTls clientTls = upstreamTls;
        List<UpstreamDefinition> definitions = assembly.upstreams().stream()
                .map(d -> clientTls == null ? d
                        : new UpstreamDefinition(d.id(), d.endpoints(), d.settings().withTls(clientTls)))
                .toList();
        Upstreams upstreams = Upstreams.create(definitions, observers.pools());
        GatewayConfig.ServerSpec s = config.server();
        // Resolved once, here: the assembly made one upstream per route, named in the route.
        BoundRoutes routes = BoundRoutes.bind(assembly.routes(), r -> upstreams.get(r.upstreamId()));
        ProxyHandler proxy = new ProxyHandler(routes,
                new ProxySettings(s.trustedProxies(), s.readTimeout(), s.limits()), observers.exchanges());
        ListenerSettings ls = new ListenerSettings(s.address(), s.port(), s.backlog(), s.maxConnections(),
                s.headerTimeout(), s.idleTimeout(), s.readTimeout(), s.limits(), s.http2(),
                s.underscoresInHeaders());
        Listener listener = null;
        Listener redirect = null;
        try {
            ServerTls serverTls = config.tls().server() == null ? null : ServerTls.create(config.tls().server());
            if (serverTls != null) {
                reloader.watch("server.ssl", serverTls);
            }
            listener = new Listener(ls, serverTls, proxy, ConnectionExecutors.create(s.threads(), "gw"),
                    observers.connections()).start();
            if (config.tls().httpRedirectPort() != 0) {
                redirect = new Listener(ls.withPort(config.tls().httpRedirectPort()),
                        new HttpsRedirect(listener.port()),
                        ConnectionExecutors.create(new ThreadModel.Virtual(), "redirect"),
                        ConnectionListener.NOOP).start();
            }
        } catch (IOException | TlsMaterialException | RuntimeException e) {
            if (listener != null) {
                listener.close();
            }
            upstreams.close();
            rateLimiting.close();
            if (e instanceof TlsMaterialException t) {
                throw new IOException("server.ssl: " + t.getMessage(), t);
            }
            if (e instanceof IOException io) {
                throw io;
            }
            throw (RuntimeException) e;
        }
        return new Gateway(config, assembly, upstreams, listener, rateLimiting, redirect, reloader.start());
    }

    /** TLS to origins when a route names an https:// origin; null otherwise. */
    private static ClientTls clientTls(GatewayConfig config, GatewayAssembly assembly, TlsReloader reloader)
            throws IOException {
        boolean anyHttps = assembly.upstreams().stream().flatMap(d -> d.endpoints().stream())
                .anyMatch(e -> e.tls());
        if (!anyHttps) {
            return null;
        }
        try {
            ClientTls tls = ClientTls.create(config.tls().upstream());
            if (tls.insecure()) {
                log.warn("upstream.ssl.insecure is true: certificates and host names of https:// origins are NOT "
                        + "verified; anyone on the path can impersonate them (use it in labs only)");
            }
            reloader.watch("upstream.ssl", tls);
            return tls;
        } catch (TlsMaterialException e) {
            throw new IOException("upstream.ssl: " + e.getMessage(), e);
        }
    }

    /** Reads every certificate file again now (SIGHUP); returns whether all of them loaded. */
    public boolean reloadCertificates() {
        return reloader.reloadAll();
    }

    /** The plain listener answering 308 to https, or null. */
    public Listener redirectListener() {
        return redirect;
    }

    /** The certificate reloader, so the admin listener's TLS is watched with the rest. */
    public TlsReloader tlsReloader() {
        return reloader;
    }

    public int port() {
        return listener.port();
    }

    public GatewayConfig config() {
        return config;
    }

    public GatewayAssembly assembly() {
        return assembly;
    }

    public Upstreams upstreams() {
        return upstreams;
    }

    public Listener listener() {
        return listener;
    }

    /** Stops accepting, lets requests in flight finish within the timeout, closes pools. */
    public boolean drain(Duration timeout) throws InterruptedException {
        if (redirect != null) {
            redirect.close();
        }
        boolean clean = listener.drain(timeout);
        upstreams.close();
        rateLimiting.close();
        reloader.close();
        return clean;
    }

    @Override
    public void close() {
        if (redirect != null) {
            redirect.close();
        }
        listener.close();
        upstreams.close();
        rateLimiting.close();
        reloader.close();
    }

    /** Route ids, for start-up messages. */
    List<String> routeIds() {
        return assembly.routes().routes().stream().map(r -> r.id()).toList();
    }
}
