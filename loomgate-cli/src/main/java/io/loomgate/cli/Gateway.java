package io.loomgate.cli;

import io.loomgate.config.ConfigException;
import io.loomgate.config.GatewayAssembly;
import io.loomgate.config.GatewayConfig;
import io.loomgate.proxy.ExchangeListener;
import io.loomgate.proxy.ProxyHandler;
import io.loomgate.proxy.ProxySettings;
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

    private Gateway(GatewayConfig config, GatewayAssembly assembly, Upstreams upstreams, Listener listener) {
        this.config = config;
        this.assembly = assembly;
        this.upstreams = upstreams;
        this.listener = listener;
    }

    /** Observers of a gateway, wired in by the composition root. */
    public record Observers(ExchangeListener exchanges, PoolListener pools, ConnectionListener connections) {
        public static final Observers NONE = new Observers(ExchangeListener.NOOP, PoolListener.NOOP,
                ConnectionListener.NOOP);
    }

    public static Gateway start(GatewayConfig config, Observers observers) throws ConfigException, IOException {
        GatewayAssembly assembly = GatewayAssembly.build(config);
        Upstreams upstreams = Upstreams.create(assembly.upstreams(), observers.pools());
        GatewayConfig.ServerSpec s = config.server();
        ProxyHandler proxy = new ProxyHandler(assembly.routes(), upstreams,
                new ProxySettings(s.trustedProxies(), s.readTimeout(), s.limits()), observers.exchanges());
        ListenerSettings ls = new ListenerSettings(s.address(), s.port(), s.backlog(), s.maxConnections(),
                s.headerTimeout(), s.idleTimeout(), s.readTimeout(), s.limits());
        Listener listener;
        try {
            listener = new Listener(ls, proxy, ConnectionExecutors.create(s.threads(), "gw"),
                    observers.connections()).start();
        } catch (IOException e) {
            upstreams.close();
            throw e;
        }
        return new Gateway(config, assembly, upstreams, listener);
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
        return clean;
    }

    @Override
    public void close() {
        listener.close();
        upstreams.close();
    }

    /** Route ids, for start-up messages. */
    List<String> routeIds() {
        return assembly.routes().routes().stream().map(r -> r.id()).toList();
    }
}
