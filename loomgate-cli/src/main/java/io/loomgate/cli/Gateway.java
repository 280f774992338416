package io.loomgate.cli;

import io.loomgate.config.ConfigException;
import io.loomgate.config.GatewayAssembly;
import io.loomgate.config.GatewayConfig;
import io.loomgate.proxy.BoundRoutes;
import io.loomgate.proxy.ExchangeListener;
import io.loomgate.proxy.ProxyHandler;
import io.loomgate.proxy.ProxySettings;
import io.loomgate.ratelimit.RateLimitListener;
import io.loomgate.ratelimit.RateLimiting;
import io.loomgate.route.PredicateRegistry;
import io.loomgate.server.ConnectionListener;
import io.loomgate.server.Listener;
import io.loomgate.server.ListenerSettings;
import io.loomgate.threads.ConnectionExecutors;
import io.loomgate.upstream.PoolListener;
import io.loomgate.upstream.Upstreams;
import java.io.IOException;
import java.time.Duration;
import java.util.List;

/**
 * A running gateway: the composition of a validated configuration into routes, upstream pools, the proxy and the
 * client listener. Lifecycle: {@link #start} → serving → {@link #drain} (SIGTERM) or {@link #close}.
 */
public final class Gateway implements AutoCloseable {
    private final GatewayConfig config;
    private final GatewayAssembly assembly;
    private final Upstreams upstreams;
    private final Listener listener;
    private final RateLimiting rateLimiting;

    private Gateway(GatewayConfig config, GatewayAssembly assembly, Upstreams upstreams, Listener listener,
                    RateLimiting rateLimiting) {
        this.config = config;
        this.assembly = assembly;
        this.upstreams = upstreams;
        this.listener = listener;
        this.rateLimiting = rateLimiting;
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
        RateLimiting rateLimiting = new RateLimiting(config.redis(), observers.rateLimits());
        GatewayAssembly assembly;
        try {
            assembly = GatewayAssembly.build(config, PredicateRegistry.withBuiltIns(),
                    GatewayAssembly.gatewayFilters().register(rateLimiting.filterFactory()));
        } catch (ConfigException e) {
            rateLimiting.close();
            throw e;
        }
        Upstreams upstreams = Upstreams.create(assembly.upstreams(), observers.pools());
        GatewayConfig.ServerSpec s = config.server();
        // Resolved once, here: the assembly made one upstream per route, named in the route.
        BoundRoutes routes = BoundRoutes.bind(assembly.routes(), r -> upstreams.get(r.upstreamId()));
        ProxyHandler proxy = new ProxyHandler(routes,
                new ProxySettings(s.trustedProxies(), s.readTimeout(), s.limits()), observers.exchanges());
        ListenerSettings ls = new ListenerSettings(s.address(), s.port(), s.backlog(), s.maxConnections(),
                s.headerTimeout(), s.idleTimeout(), s.readTimeout(), s.limits(), s.http2(),
                s.underscoresInHeaders());
        Listener listener;
        try {
            listener = new Listener(ls, proxy, ConnectionExecutors.create(s.threads(), "gw"),
                    observers.connections()).start();
        } catch (IOException e) {
            upstreams.close();
            rateLimiting.close();
            throw e;
        }
        return new Gateway(config, assembly, upstreams, listener, rateLimiting);
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
        boolean clean = listener.drain(timeout);
        upstreams.close();
        rateLimiting.close();
        return clean;
    }

    @Override
    public void close() {
        listener.close();
        upstreams.close();
        rateLimiting.close();
    }

    /** Route ids, for start-up messages. */
    List<String> routeIds() {
        return assembly.routes().routes().stream().map(r -> r.id()).toList();
    }
}
