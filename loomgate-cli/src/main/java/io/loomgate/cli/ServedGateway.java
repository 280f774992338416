package io.loomgate.cli;

import io.loomgate.config.ConfigException;
import io.loomgate.config.GatewayConfig;
import io.loomgate.config.Plugins;
import io.loomgate.observe.ConfigReloads;
import io.loomgate.server.Listener;
import io.loomgate.server.Transport;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A gateway served the way {@code loomgate serve} serves it: the config's logging settings applied, metrics, access
 * log and pinned-thread monitor, the gateway itself, the admin listener, then live reload (the file watch, SIGHUP,
 * POST /reload). {@link ServeCommand} and the embedding API ({@code io.loomgate.Loomgate}) both start one.
 * Lifecycle: {@link #start} → serving (reloads swap routes and upstreams) → {@link #drain} or {@link #close}; either
 * stops reloading first and ends the observability last, so the last access-log lines are written.
 */
public final class ServedGateway implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ServedGateway.class);

    private final GatewayConfig config;
    private final Gateway gateway;
    private final Observability observability;
    private final int adminPort;
    private final ConfigReloader reloader;
    private final ConfigWatcher watcher;

    private ServedGateway(GatewayConfig config, Gateway gateway, Observability observability, int adminPort,
                          ConfigReloader reloader, ConfigWatcher watcher) {
        this.config = config;
        this.gateway = gateway;
        this.observability = observability;
        this.adminPort = adminPort;
        this.reloader = reloader;
        this.watcher = watcher;
    }

    /**
     * How the running gateway follows its file.
     *
     * @param file      the configuration file it was started from
     * @param overrides what the command line overrode, applied again to every reloaded file
     * @param watchFile reload when the file changes
     * @param onSighup  reload on SIGHUP (the CLI; an embedding application owns its signals)
     * @param settle    how long the file must stay the same before it is applied (a file being written in place
     *                  is never applied half-written); a file the watch sees drop routes or protective filters
     *                  waits {@link #CONFIRM_WINDOWS} times as long
     */
    public record Reloading(Path file, UnaryOperator<GatewayConfig> overrides, boolean watchFile,
                            boolean onSighup, Duration settle) {
        /**
         * Two seconds: longer than the pauses of writers that rewrite a file in place (an editor's save, {@code cat >
         * file}, a copy over a slow network mount: up to 1.5 s seen), short beside how often anyone edits a gateway's
         * routes. A rename over the file is never seen half-written, whatever the window.
         */
        public static final Duration DEFAULT_SETTLE = Duration.ofSeconds(2);
        /** The file watch applies a file that drops routes or protective filters after this many settle windows. */
        public static final int CONFIRM_WINDOWS = 5;

        public Reloading {
            if (settle.isNegative() || settle.isZero()) {
                throw new IllegalArgumentException("the settle window must be positive, got " + settle);
            }
        }

        /** With the {@link #DEFAULT_SETTLE default settle window}. */
        public Reloading(Path file, UnaryOperator<GatewayConfig> overrides, boolean watchFile, boolean onSighup) {
            this(file, overrides, watchFile, onSighup, DEFAULT_SETTLE);
        }

        Duration confirm() {
            // Not settle.multipliedBy: the JDK multiplies through BigDecimal, whose JDK 25 class initialiser costs
            // ~10 ms interpreted on the way to the first answer (docs/architecture.md, "Start-up"). Same result,
            // the same ArithmeticException on overflow.
            return Duration.ofSeconds(Math.multiplyExact(settle.getSeconds(), CONFIRM_WINDOWS),
                    (long) settle.getNano() * CONFIRM_WINDOWS);
        }
    }

    /**
     * Starts serving a validated configuration with the built-in filters and predicates plus the plugins'.
     *
     * @throws ConfigException when a route cannot be built (unknown filter, a plugin that throws, ...)
     * @throws IOException     when a listener cannot bind
     */
    public static ServedGateway start(GatewayConfig config, Plugins plugins)
            throws ConfigException, IOException, InterruptedException {
        return start(config, plugins, null);
    }

    /**
     * As {@link #start(GatewayConfig, Plugins)}, reloading the file live as {@code reloading} says (null: never; no
     * /reload either).
     */
    public static ServedGateway start(GatewayConfig config, Plugins plugins, Reloading reloading)
            throws ConfigException, IOException, InterruptedException {
        long t0 = System.nanoTime();
        if (config.server().transport() == Transport.JDK) {
            // The JDK's poller, which the listener's bind waits for, set up while the rest of the start runs.
            Listener.preparePoller();
        }
        LogSettings.apply(config.logging());
        if (!plugins.names().isEmpty()) {
            log.info("plugins {} from {}", plugins.names(), plugins.jars().isEmpty() ? "code" : plugins.jars());
        }
        Observability observability = Observability.start(config);
        Gateway gw;
        int adminPort;
        try {
            gw = Gateway.bind(config, plugins, observability.observers());
        } catch (ConfigException | IOException | RuntimeException e) {
            observability.close();
            throw e;
        }
        ConfigReloader reloader = reloading == null ? null : new ConfigReloader(reloading.file(),
                reloading.overrides(), gw, config, r -> observability.reloaded(r, gw), reloading.settle(),
                reloading.confirm());
        // SIGHUP reloads before the listener accepts (and before the admin listener's readiness answers): a SIGHUP
        // that follows the first answer must not find the JVM's own handling, which exits.
        if (reloader != null && reloading.onSighup()) {
            ReloadSignal.onHangup(() -> { // one SIGHUP handler: certificates (server.ssl ...) and the config file
                gw.reloadCertificates();
                reloader.reload("signal");
            });
        }
        // Clients' handshakes complete into the backlog from the bind on; a crowd of them (a restart behind a busy
        // load balancer) would take every descriptor in the first milliseconds of accepting. Until the rest of the
        // start has its descriptors (the admin listener, the file watch below, and the pinned-event monitor's JFR
        // recording, which shuts the JVM down when it cannot create its file; it starts with startRest below), the
        // listener admits only as many connections as leave some free.
        Runnable admitAll = gw.listener().admitAtMost(FdBudget.connectionsThatFit());
        gw.startAccepting();
        ConfigWatcher watcher = null;
        try {
            adminPort = observability.startAdmin(config, gw, reloader);
            if (reloader != null && reloading.watchFile()) {
                watcher = ConfigWatcher.start(reloading.file(), reloading.settle(), reloading.confirm(),
                        (look, confirmed) -> !reloader.reloadSettled(look, confirmed).outcome().equals("held"));
            }
        } catch (IOException | RuntimeException e) {
            gw.close();
            observability.close();
            throw e;
        }
        FdBudget.check(config);
        observability.whenMonitorRecording(admitAll);
        log.info("loomgate listening on {}:{}{} ({} threads, max {} connections, transport {}), routes {}, admin {}, "
                        + "started in {} ms",
                config.server().listener().address(), gw.port(), tlsNote(config, gw), config.server().threads(),
                config.server().listener().maxConnections(),
                gw.listener().transport().name().toLowerCase(java.util.Locale.ROOT),
                gw.routeIds(), adminPort == 0 ? "off" : config.admin().address() + ":" + adminPort,
                (System.nanoTime() - t0) / 1_000_000);
        // JFR's recording and the JVM metrics a moment after serving: started before the first answer, JFR's start
        // took about a fifth of the CPU to it on two cores (docs/journal/2026-11-30-start.md).
        observability.startRest();
        return new ServedGateway(config, gw, observability, adminPort, reloader, watcher);
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

    /** Observers for aot-train's second gateway in this JVM ({@link Observability#metricsOnly}). */
    Gateway.Observers trainingObservers() {
        return observability.metricsOnly();
    }

    /** The running composition (tests ask it which transports it runs on). */
    public Gateway gateway() {
        return gateway;
    }

    /** The configuration being served. */
    public GatewayConfig config() {
        return config;
    }

    /** The route ids being served, in match order. */
    public List<String> routeIds() {
        return gateway.routeIds();
    }

    /** Reloads the file now, as POST /reload does; null when this gateway does not reload. */
    public ConfigReloads.Result reload() {
        return reloader == null ? null : reloader.reload("api");
    }

    /** Stops accepting, lets requests in flight finish within the timeout, then closes everything. */
    public boolean drain(Duration timeout) throws InterruptedException {
        stopWatching();
        try {
            return gateway.drain(timeout);
        } finally {
            observability.close();
        }
    }

    /** Stops at once: listeners and pools closed, connections cut. */
    @Override
    public void close() {
        stopWatching();
        gateway.close();
        observability.close();
    }

    private void stopWatching() {
        if (watcher != null) {
            watcher.close();
        }
    }
}
