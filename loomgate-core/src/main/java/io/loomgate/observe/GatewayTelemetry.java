package io.loomgate.observe;

import io.loomgate.proxy.BoundRoutes;
import io.loomgate.proxy.ExchangeListener;
import io.loomgate.ratelimit.RateLimitListener;
import io.loomgate.security.JwksListener;
import io.loomgate.server.ConnectionListener;
import io.loomgate.server.Listener;
import io.loomgate.server.ListenerSettings;
import io.loomgate.threads.ConnectionExecutors;
import io.loomgate.threads.ThreadModel;
import io.loomgate.tls.ServerTls;
import io.loomgate.upstream.PoolListener;
import io.loomgate.upstream.Upstreams;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The observe package assembled for one gateway, so the composition root only passes values through: the metrics,
 * the access log and the pinned-event monitor, the listeners to hand to the core, and the admin listener.
 *
 * <p>Lifecycle: {@link #start} (access-log writer running) → give {@link #exchangeListener()},
 * {@link #poolListener()} and {@link #connectionListener()} to the proxy, the pools and the client listener →
 * {@link #startAdmin} once the routes and upstreams exist → {@link #startRest} once the gateway serves (the monitor's
 * JFR stream, JVM metrics) → {@link #close()} after the gateway has drained (so the last access-log lines are
 * written).
 *
 * <p>The admin listener runs on cached <em>platform</em> threads: its few connections then never show up in the
 * virtual-thread counts or pinned events it reports, whichever thread model the gateway itself uses.
 */
public final class GatewayTelemetry implements AutoCloseable {

    /**
     * What to run.
     *
     * @param accessLog         null for no access log, else its format
     * @param accessLogCapacity lines the access-log queue holds before it drops
     * @param pinnedThreshold   null for no JFR monitor (no pinned events, no virtual-thread count), else the
     *                          shortest pinned block to report
     * @param tracing           null for no tracing, else what to export where (needs {@value TracingSupport#MODULE})
     */
    public record Settings(AccessLogFormat accessLog, int accessLogCapacity, Duration pinnedThreshold,
                           TracingSettings tracing) {
        public Settings(AccessLogFormat accessLog, int accessLogCapacity, Duration pinnedThreshold) {
            this(accessLog, accessLogCapacity, pinnedThreshold, null);
        }
    }

    /**
     * Why tracing cannot start here ({@value TracingSupport#MODULE} is not on the class path), or null when it can:
     * for the configuration error that names the module.
     */
    public static String tracingUnavailable() {
        return TracingSupport.find().isPresent() ? null : "needs the module io.loomgate:" + TracingSupport.MODULE
                + " (the OpenTelemetry SDK), which is not on the class path: add it beside loomgate-core (the "
                + "distribution jars carry it)";
    }

    private static final Logger LOG = LoggerFactory.getLogger(GatewayTelemetry.class);
    /** Admin connections are few and short: an operator's dashboard, a scraper, a probe. */
    private static final int ADMIN_MAX_CONNECTIONS = 64;
    /** Idle and per-read limit of admin connections. */
    private static final Duration ADMIN_TIMEOUT = Duration.ofSeconds(30);
    /** How long after the gateway serves {@link #startRest} starts what its first requests do not need. */
    static final Duration REST_AFTER = Duration.ofSeconds(1);

    private final GatewayMetrics metrics;
    private final AccessLog accessLog;
    private final PinnedEventMonitor monitor;
    /** The OpenTelemetry tracer, or null without tracing. */
    private final TracingSupport.Tracer tracer;
    private volatile Listener admin;
    private volatile boolean closed;

    private GatewayTelemetry(GatewayMetrics metrics, AccessLog accessLog, PinnedEventMonitor monitor,
                             TracingSupport.Tracer tracer) {
        this.metrics = metrics;
        this.accessLog = accessLog;
        this.monitor = monitor;
        this.tracer = tracer;
    }

    /**
     * Starts what the first request needs: the metrics, the access log and the tracer, as configured, and the
     * pinned-event monitor's counts of virtual threads. The rest waits for {@link #startRest}, run beside the first
     * answers, not before them: the monitor's JFR stream (JFR's start took about a fifth of the CPU to the first answer,
     * on a thread of its own beside the start on two cores) and the JVM metrics' binders. (A scrape before then binds
     * the JVM metrics itself, so none is ever without them; pinned events before the stream is up are not seen.) JFR
     * creates its repository's files as it comes up and shuts the whole JVM down when it cannot, so a gateway keeps
     * descriptors for it until {@link #whenMonitorRecording}: {@code FdLimitIT}. Tracing without its module is an
     * {@link IllegalStateException} ({@link #tracingUnavailable()}).
     */
    public static GatewayTelemetry start(Settings settings) {
        GatewayMetrics metrics = new GatewayMetrics().bindJvmByFirstScrape();
        PinnedEventMonitor monitor = null;
        if (settings.pinnedThreshold() != null) {
            monitor = monitor(settings.pinnedThreshold());
            if (monitor != null) {
                metrics.bindVirtualThreads(monitor);
            }
        }
        TracingSupport.Tracer tracer = null;
        if (settings.tracing() != null) {
            tracer = TracingSupport.find().orElseThrow(() -> new IllegalStateException("tracing "
                    + tracingUnavailable())).start(settings.tracing(), metrics.registry());
        }
        AccessLog accessLog = settings.accessLog() == null ? null
                : AccessLog.toLogger(settings.accessLog(), settings.accessLogCapacity(), metrics.registry()).start();
        return new GatewayTelemetry(metrics, accessLog, monitor, tracer);
    }

    /**
     * Runs {@code then} on a virtual thread once the pinned-event monitor's JFR recording ({@link #startRest}) has its
     * files, or has failed to start, or the telemetry was closed first, or after {@code timeout} with a warning (at
     * once when there is no monitor).
     */
    public void whenMonitorRecording(Duration timeout, Runnable then) {
        if (monitor == null) {
            then.run();
            return;
        }
        Thread.ofVirtual().name("loomgate-jfr-wait").start(() -> {
            try {
                if (!monitor.awaitRecording(timeout)) {
                    LOG.warn("the pinned-event monitor's JFR recording did not start within {} s; going on without "
                            + "keeping descriptors for it (JFR stops the JVM if it cannot create its files later)",
                            timeout.toSeconds());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                then.run();
            }
        });
    }

    /**
     * Starts the rest once the gateway serves, on a virtual thread, {@link #REST_AFTER} later: the pinned-event
     * monitor's JFR stream and the JVM metrics' binders. Waiting keeps them off the CPU while the first requests are
     * answered (on two cores the JIT's threads already take one). Nothing starts once this telemetry is closed. Not one of the gateway's counted virtual threads: it serves no connection.
     */
    public void startRest() {
        Thread.ofVirtual().name("loomgate-start-rest").start(new RestOfStart(this));
    }

    /**
     * The task of {@link #startRest}; a class of its own rather than a lambda so the JVM's class-loading log shows
     * when it begins ({@code StartupClassesTest} checks that the JVM binders and JFR's recorder load after it).
     */
    private record RestOfStart(GatewayTelemetry telemetry) implements Runnable {
        @Override
        public void run() {
            try {
                Thread.sleep(REST_AFTER);
            } catch (InterruptedException e) {
                return;
            }
            telemetry.startRestNow();
        }
    }

    /** The rest, now, on the calling thread; see {@link #startRest}. */
    void startRestNow() {
        if (closed) {
            return;
        }
        if (monitor != null) {
            monitor.startInBackground(); // a stream that cannot open is logged there
        }
        metrics.bindJvm();
    }

    /** The JFR monitor, or null with a warning when this runtime has no JFR (a jlink image without jdk.jfr). */
    private static PinnedEventMonitor monitor(Duration threshold) {
        try {
            return new PinnedEventMonitor(threshold, PinnedEventMonitor.DEFAULT_CAPACITY);
        } catch (LinkageError e) {
            LOG.warn("pinned-event monitor not started, so no pinned events and no virtual-thread count: {}",
                    e.toString());
            return null;
        }
    }

    /**
     * Assembles parts built elsewhere (e.g. an access log writing to its own sink); they must be started already.
     *
     * @param accessLog null for none
     * @param monitor   null for none; if given, already bound to the metrics
     */
    public static GatewayTelemetry of(GatewayMetrics metrics, AccessLog accessLog, PinnedEventMonitor monitor) {
        return new GatewayTelemetry(metrics, accessLog, monitor, null);
    }

    public GatewayMetrics metrics() {
        return metrics;
    }

    /** For the proxy: the metrics, then the access log and the tracer when there are. */
    public ExchangeListener exchangeListener() {
        List<ExchangeListener> all = new ArrayList<>(List.of(metrics));
        if (accessLog != null) {
            all.add(accessLog);
        }
        if (tracer != null) {
            all.add(tracer);
        }
        return ExchangeListener.composite(all);
    }

    /** For {@code RateLimiting}: {@code loomgate_ratelimit_requests_total} and the store errors. */
    public RateLimitListener rateLimitListener() {
        return metrics.rateLimits();
    }

    /** For the {@code JwtAuth} key sources: {@code loomgate_jwks_fetches_total}. */
    public JwksListener jwksListener() {
        return metrics.jwks();
    }

    /** For the upstream pools ({@code Upstreams.create}). */
    public PoolListener poolListener() {
        return metrics;
    }

    /** For the client listener only; the admin listener gets none, so scrapes are not client connections. */
    public ConnectionListener connectionListener() {
        return metrics;
    }

    /**
     * Registers the per-upstream pool gauges and every route's meters (so idle routes show zeros), then starts the
     * admin listener.
     *
     * @param routes the routes now loaded, bound to their upstreams (e.g. {@code proxy::routes})
     * @param ready  config loaded, listeners bound, not draining
     */
    public Listener startAdmin(String address, int port, Supplier<BoundRoutes> routes, Upstreams upstreams,
                               BooleanSupplier ready) throws IOException {
        return startAdmin(address, port, null, routes, () -> upstreams, ready, null,
                new AdminAccess(null, address, java.util.List.of()));
    }

    /**
     * The same, speaking TLS when {@code tls} is not null ({@code admin.ssl}), for a gateway whose routes and
     * upstreams a live reload replaces: each is read from its supplier on every request and scrape, and
     * {@code /reload} reaches {@code reloads} (null: no live reload); {@code access} says who may use it.
     */
    public Listener startAdmin(String address, int port, ServerTls tls, Supplier<BoundRoutes> routes,
                               Supplier<Upstreams> upstreams, BooleanSupplier ready, ConfigReloads reloads,
                               AdminAccess access) throws IOException {
        if (admin != null) {
            throw new IllegalStateException("admin listener already started");
        }
        metrics.bindUpstreams(upstreams);
        routes.get().routes().forEach(r -> metrics.registerRoute(r.id()));
        metrics.bindBreakers(() -> routes.get().routes());
        ListenerSettings d = ListenerSettings.DEFAULTS;
        ListenerSettings settings = new ListenerSettings(address, port, ADMIN_MAX_CONNECTIONS, ADMIN_MAX_CONNECTIONS,
                d.headerTimeout(), ADMIN_TIMEOUT, ADMIN_TIMEOUT, d.limits());
        admin = new Listener(settings, tls, new AdminHandler(metrics, routes, upstreams, ready, reloads, access),
                ConnectionExecutors.create(new ThreadModel.Cached(), "admin"), ConnectionListener.NOOP)
                .outsideMemoryGate().start(); // health checks must be answered while the data path's gate is shut
        return admin;
    }

    /** Closes the admin listener, writes out the access log and the queued spans, stops the monitor and the metrics. */
    @Override
    public void close() {
        closed = true;
        Listener a = admin;
        if (a != null) {
            a.close();
        }
        if (accessLog != null) {
            accessLog.close();
        }
        if (tracer != null) {
            tracer.close();
        }
        if (monitor != null) {
            monitor.close();
        }
        metrics.close();
    }
}
