package io.loomgate.cli;

import io.loomgate.config.ConfigException;
import io.loomgate.config.GatewayConfig;
import io.loomgate.config.Plugins;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A gateway served the way {@code loomgate serve} serves it: the config's logging settings applied, metrics, access
 * log and pinned-thread monitor, the gateway itself, then the admin listener. {@link ServeCommand} and the embedding
 * API ({@code io.loomgate.Loomgate}) both start one. Lifecycle: {@link #start} → serving → {@link #drain} or
 * {@link #close}; either ends the observability last, so the last access-log lines are written.
 */
public final class ServedGateway implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ServedGateway.class);

    private final GatewayConfig config;
    private final Gateway gateway;
    private final Observability observability;
    private final int adminPort;

    private ServedGateway(GatewayConfig config, Gateway gateway, Observability observability, int adminPort) {
        this.config = config;
        this.gateway = gateway;
        this.observability = observability;
        this.adminPort = adminPort;
    }

    /**
     * Starts serving a validated configuration with the built-in filters and predicates plus the plugins'.
     *
     * @throws ConfigException when a route cannot be built (unknown filter, a plugin that throws, ...)
     * @throws IOException     when a listener cannot bind
     */
    public static ServedGateway start(GatewayConfig config, Plugins plugins)
            throws ConfigException, IOException, InterruptedException {
        long t0 = System.nanoTime();
        LogSettings.apply(config.logging());
        if (!plugins.names().isEmpty()) {
            log.info("plugins {} from {}", plugins.names(), plugins.jars().isEmpty() ? "code" : plugins.jars());
        }
        Observability observability = Observability.start(config);
        Gateway gw;
        int adminPort;
        try {
            gw = Gateway.start(config, plugins, observability.observers());
        } catch (ConfigException | IOException | RuntimeException e) {
            observability.close();
            throw e;
        }
        try {
            adminPort = observability.startAdmin(config, gw);
        } catch (IOException | RuntimeException e) {
            gw.close();
            observability.close();
            throw e;
        }
        FdBudget.check(config);
        log.info("loomgate listening on {}:{}{} ({} threads, max {} connections), routes {}, admin {}, started in {} ms",
                config.server().address(), gw.port(), tlsNote(config, gw), config.server().threads(),
                config.server().maxConnections(),
                gw.routeIds(), adminPort == 0 ? "off" : config.admin().address() + ":" + adminPort,
                (System.nanoTime() - t0) / 1_000_000);
        return new ServedGateway(config, gw, observability, adminPort);
    }

    /** Reloads the TLS certificates from their files (SIGHUP). */
    public void reloadCertificates() {
        gateway.reloadCertificates();
    }

    private static String tlsNote(GatewayConfig cfg, Gateway gw) {
        if (cfg.tls().server() == null) {
            return "";
        }
        return " (TLS " + String.join("/", cfg.tls().server().protocols())
                + (gw.redirectListener() == null ? "" : ", 308 to https from :" + gw.redirectListener().port()) + ")";
    }
    /** The client listener's port. */
    public int port() {
        return gateway.port();
    }

    /** The admin listener's port, or 0 when it is off. */
    public int adminPort() {
        return adminPort;
    }

    /** The configuration being served. */
    public GatewayConfig config() {
        return config;
    }

    /** The route ids being served, in match order. */
    public List<String> routeIds() {
        return gateway.routeIds();
    }

    /** Stops accepting, lets requests in flight finish within the timeout, then closes everything. */
    public boolean drain(Duration timeout) throws InterruptedException {
        try {
            return gateway.drain(timeout);
        } finally {
            observability.close();
        }
    }

    /** Stops at once: listeners and pools closed, connections cut. */
    @Override
    public void close() {
        gateway.close();
        observability.close();
    }
}
