package io.loomgate.cli;

import io.loomgate.config.ConfigException;
import io.loomgate.config.GatewayConfig;
import io.loomgate.observe.AccessLog;
import io.loomgate.observe.AccessLogFormat;
import io.loomgate.observe.AdminAccess;
import io.loomgate.observe.ConfigReloads;
import io.loomgate.observe.GatewayTelemetry;
import io.loomgate.observe.TracingSettings;
import io.loomgate.server.ConnectionListener;
import io.loomgate.threads.ConnectionExecutors;
import io.loomgate.tls.ServerTls;
import io.loomgate.tls.TlsMaterialException;
import io.loomgate.upstream.PoolListener;
import java.io.IOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.URI;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Wires the observe package into a gateway: metrics, access log and pinned-thread monitor first (so the listeners
 * exist before the first connection), the admin listener once routes and pools exist, what the first requests do not
 * need (the monitor's JFR recording, JVM metrics) once it serves, descriptors kept for that recording until it is up,
 * and shutdown after the drain (so the last access-log lines are written).
 */
final class Observability implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Observability.class);
    private static final Duration MONITOR_START = Duration.ofSeconds(10);
    private final GatewayTelemetry telemetry;

    private Observability(GatewayTelemetry telemetry) {
        this.telemetry = telemetry;
    }

    static Observability start(GatewayConfig cfg) throws InterruptedException, ConfigException {
        AccessLogFormat format = cfg.accessLog().enabled() ? AccessLogFormat.parse(cfg.accessLog().format()) : null;
        return new Observability(GatewayTelemetry.start(new GatewayTelemetry.Settings(format,
                AccessLog.DEFAULT_CAPACITY, cfg.admin().pinnedThreshold(), tracing(cfg))));
    }

    /** The tracer's settings, or null when tracing is off; refused by name when its module is missing. */
    static TracingSettings tracing(GatewayConfig cfg) throws ConfigException {
        GatewayConfig.TracingSpec t = cfg.tracing();
        if (!t.enabled()) {
            return null;
        }
        String missing = GatewayTelemetry.tracingUnavailable();
        if (missing != null) {
            throw new ConfigException(cfg.source() == null ? "configuration" : cfg.source().toString(), 0,
                    "tracing.enabled", "tracing " + missing);
        }
        return new TracingSettings(URI.create(t.endpoint()), t.sampler(), t.serviceName(),
                Main.class.getPackage().getImplementationVersion(), t.queueSize());
    }

    Gateway.Observers observers() {
        return new Gateway.Observers(telemetry.exchangeListener(), telemetry.poolListener(),
                telemetry.connectionListener(), telemetry.rateLimitListener(), telemetry.jwksListener());
    }

    /**
     * For aot-train's second gateway: exchanges counted in this one's metrics, so that the training's profiles see
     * the exchange listener a deployment without an access log has (the metrics alone) beside this gateway's
     * composite; calls made only on a failure path (a cancelled stream's) then do not trap on that type.
     */
    Gateway.Observers metricsOnly() {
        return telemetry.metrics() == null ? Gateway.Observers.NONE
                : new Gateway.Observers(telemetry.metrics(), PoolListener.NOOP, ConnectionListener.NOOP);
    }

    /**
     * Starts the admin listener if the config asks for one; returns its port, or 0. Routes and upstreams are read
     * from the gateway on every request, so they follow live reloads; {@code reloads} (or null) serves /reload.
     */
    int startAdmin(GatewayConfig cfg, Gateway gw, ConfigReloads reloads) throws IOException {
        if (!cfg.admin().enabled()) {
            return 0;
        }
        ServerTls tls = null;
        if (cfg.tls().admin() != null) {
            try {
                tls = ServerTls.create(cfg.tls().admin());
            } catch (TlsMaterialException e) {
                throw new IOException("admin.ssl: " + e.getMessage(), e);
            }
            // The handshake path warmed as the main listener's is (Gateway.bind), but beside the start rather than on
            // it: the admin listener's connections run on platform threads, so a first probe that meets the warm-up
            // waits for the class initialisations it is running without pinning a carrier, and the main listener's
            // first answer does not wait for it. Cold, the first probe over TLS took 80-800 ms at load 10-13 (a
            // readiness probe's default timeout is one second); warmed, 45-350 ms (journal 2026-12-02-s57-startwin).
            ConnectionExecutors.startDaemon("loomgate-admin-tls-warm-up", tls::warmUp);
            gw.tlsReloader().watch("admin.ssl", tls);
        }
        GatewayConfig.AdminSpec a = cfg.admin();
        if (a.authToken() == null && !InetAddress.getByName(a.address()).isLoopbackAddress()) {
            LOG.warn("admin listener on {} has no admin.auth-token: anything that reaches port {} can reload the "
                    + "gateway and read its routes and threads; set admin.auth-token or bind 127.0.0.1",
                    a.address(), a.port());
        }
        try {
            return telemetry.startAdmin(a.address(), a.port(), tls, gw::boundRoutes, gw::upstreams,
                    () -> !gw.listener().isStopping(), reloads,
                    new AdminAccess(a.authToken(), a.address(), a.allowedHosts())).port();
        } catch (IOException e) {
            if (!(e.getCause() instanceof BindException)) {
                throw e;
            }
            throw new AdminPortTaken("the admin listener " + e.getMessage() + "; change admin.port in "
                    + (cfg.source() == null ? "the configuration" : cfg.source()) + " or pass --admin-port "
                    + "(0 turns the admin listener off)", e);
        }
    }

    /**
     * The admin listener's bind failed (its port is taken): the demo, which chose that port itself a moment before,
     * tries another ({@code DemoCommand.lostAdminBind}); the message says what to change.
     */
    static final class AdminPortTaken extends IOException {
        private static final long serialVersionUID = 1L;

        AdminPortTaken(String message, IOException cause) {
            super(message, cause);
        }
    }

    /**
     * Runs {@code then} once the pinned-event monitor's JFR recording has its files (it starts with {@link #startRest};
     * at most 10 s from now).
     */
    void whenMonitorRecording(Runnable then) {
        telemetry.whenMonitorRecording(MONITOR_START, then);
    }

    /** Once the gateway serves: the pinned-event monitor's JFR recording and the JVM metrics, in the background. */
    void startRest() {
        telemetry.startRest();
    }

    /**
     * A reload attempt ended: counted; when applied, the new routes', breakers' and upstreams' meters are registered.
     */
    void reloaded(ConfigReloads.Result result, Gateway gw) {
        telemetry.metrics().configReloaded(result.outcome());
        if (result.outcome().equals("applied")) {
            telemetry.metrics().bindUpstreams(gw::upstreams);
            gw.routes().forEach(r -> telemetry.metrics().registerRoute(r.id()));
            telemetry.metrics().bindBreakers(gw::routes);
        }
    }

    @Override
    public void close() {
        telemetry.close();
    }
}
