package io.loomgate.observe;

import io.loomgate.proxy.ExchangeListener;
import io.loomgate.proxy.ExchangeView;
import io.loomgate.proxy.ProxyFailure;
import io.loomgate.ratelimit.RateLimitListener;
import io.loomgate.route.Route;
import io.loomgate.security.JwksListener;
import io.loomgate.server.ConnectionListener;
import io.loomgate.upstream.Endpoint;
import io.loomgate.upstream.EvictionReason;
import io.loomgate.upstream.PoolListener;
import io.loomgate.upstream.Upstream;
import io.loomgate.upstream.UpstreamMember;
import io.loomgate.upstream.UpstreamPool;
import io.loomgate.upstream.Upstreams;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmInfoMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.FileDescriptorMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.InetSocketAddress;
import java.time.Instant;
import java.util.Collection;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;

/**
 * Turns the core's events into Prometheus metrics. One instance serves the whole gateway: it is the proxy's
 * {@link ExchangeListener}, the pools' {@link PoolListener} and the client listener's {@link ConnectionListener}
 * (give the admin listener {@link ConnectionListener#NOOP}, so scrapes do not count as client connections).
 *
 * <p>Every listener method is a map read plus counter increments: meters are registered once per route, upstream and
 * endpoint and cached. The {@code status} label is the status class ({@code 2xx}, ..., {@code none} when no response
 * was sent) and unknown methods count as {@code OTHER}, so clients cannot create series at will.
 *
 * <p>In-flight per route is +1 on routeMatched and -1 when an exchange with a route ends or fails; this relies on the
 * proxy's documented order (routeMatched precedes the end of every exchange whose route id is set).
 *
 * <p>Lifecycle: construct, bind what exists ({@link #bindJvm()} or {@link #bindJvmByFirstScrape()},
 * {@link #bindUpstreams}, {@link #bindVirtualThreads}), attach as listener, {@link #close()} at shutdown.
 */
public final class GatewayMetrics implements ExchangeListener, PoolListener, ConnectionListener, AutoCloseable {
    static final int RECENT_ERRORS = 50;

    private final PrometheusMeterRegistry registry;
    private final ConcurrentMap<String, RouteMeters> routes = new ConcurrentHashMap<>();
    /** The routes served now, for the breaker gauges ({@link #bindBreakers}). */
    private volatile Supplier<List<Route>> servedRoutes = List::of;
    /** The breaker names that have a state gauge. */
    private final Set<String> breakerGauges = ConcurrentHashMap.newKeySet();
    /** The configuration served now: 1 for the one started with, one more for each applied reload. */
    private final AtomicLong configGeneration = new AtomicLong(1);
    private final ConcurrentMap<String, UpstreamMeters> upstreams = new ConcurrentHashMap<>();
    private final ConcurrentMap<Endpoint, EndpointMeters> endpoints = new ConcurrentHashMap<>();
    private final AtomicInteger clientConnections = new AtomicInteger();
    private final AtomicInteger parkedConnections = new AtomicInteger();
    private final Counter clientOpened;
    private final Counter clientRejected;
    private final Map<ConnectionListener.HandshakeFailure, Counter> handshakeFailures =
            new EnumMap<>(ConnectionListener.HandshakeFailure.class);
    private final BoundedRing<RecentError> recentErrors = new BoundedRing<>(RECENT_ERRORS);
    /** Made when first read (the JVM binders, the dashboard): it takes the platform MXBean machinery up. */
    private volatile CarrierPool carriers;
    private final RateLimitMeters rateLimits;
    private final JwksMeters jwks;
    private final CacheMeters caches;
    /** Guards the JVM binders: bound at most once, by whichever comes first (see {@link #bindJvmByFirstScrape}). */
    private final ReentrantLock jvmLock = new ReentrantLock();
    private JvmGcMetrics gcMetrics; // guarded by jvmLock
    private boolean jvmBound; // guarded by jvmLock; also set by close(), so nothing binds to a closed registry
    /** Set by {@link #bindJvmByFirstScrape}: a scrape binds the JVM metrics if nothing has yet. */
    private volatile boolean jvmWanted;
    private volatile PinnedEventMonitor threadMonitor;
    /** The upstreams served now, for the per-endpoint meters; null before {@link #bindUpstreams}. */
    private volatile Supplier<Upstreams> upstreamSource;
    private final ReentrantLock endpointMetersLock = new ReentrantLock();
    private final Map<MemberKey, List<Meter>> memberMeters = new HashMap<>(); // guarded by endpointMetersLock

    static {
        // A failed exchange's first use of these, compiled before any exchange failed, is an 'uninitialized' trap in
        // the proxy path's compiled roots: initialised here instead, as proxy.FailurePathClasses does its own.
        initialise(UpstreamErrorKind.class);
        initialise(RecentError.class);
    }

    private static void initialise(Class<?> c) {
        try {
            Class.forName(c.getName(), true, c.getClassLoader());
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException(e);
        }
    }

    public GatewayMetrics() {
        this(new PrometheusMeterRegistry(PrometheusConfig.DEFAULT));
    }

    public GatewayMetrics(PrometheusMeterRegistry registry) {
        this.registry = registry;
        Gauge.builder("loomgate.config.generation", configGeneration, AtomicLong::get)
                .description("The configuration served now: 1 for the one the gateway started with, one more for "
                        + "each applied reload").register(registry);
        Gauge.builder("loomgate.client.connections", clientConnections, AtomicInteger::get)
                .description("Client connections open now").register(registry);
        Gauge.builder("loomgate.client.connections.parked", parkedConnections, AtomicInteger::get)
                .description("Idle keep-alive client connections waiting without a thread (in the listener's selector)")
                .register(registry);
        clientOpened = Counter.builder("loomgate.client.connections.opened")
                .description("Client connections accepted").register(registry);
        clientRejected = Counter.builder("loomgate.client.connections.rejected")
                .description("Client connections accepted but closed unserved because the listener was stopping")
                .register(registry);
        for (ConnectionListener.HandshakeFailure why : ConnectionListener.HandshakeFailure.values()) {
            // All three from the start, at zero: an alert on rate() needs the series before the first failure.
            handshakeFailures.put(why, Counter.builder("loomgate.client.tls.handshakes.failed")
                    .description("Client TLS handshakes that did not complete, by reason: failed (refused or broken, or a "
                            + "handshake message refused after it: a renegotiation, a key-update flood), "
                            + "timed-out (not done within header-timeout of its start), not-started (no thread free "
                            + "to start it within header-timeout of the accept: overloaded)")
                    .tag("reason", why.tag()).register(registry));
        }
        rateLimits = new RateLimitMeters(registry);
        jwks = new JwksMeters(registry);
        caches = new CacheMeters(registry);
        rateLimits.registerStore("redis");
    }

    /** The JWKS key sources' listener, counting their fetches into this registry. */
    public JwksListener jwks() {
        return jwks;
    }

    /** The rate limiter's listener, counting into this registry. */
    public RateLimitListener rateLimits() {
        return rateLimits;
    }

    public PrometheusMeterRegistry registry() {
        return registry;
    }

    /**
     * Registers the JVM and process metrics (memory, GC, threads, classes, CPU, uptime, file descriptors) and the
     * carrier pool's gauges; once: later calls, and calls after {@link #close()}, do nothing.
     */
    public GatewayMetrics bindJvm() {
        jvmLock.lock();
        try {
            if (!jvmBound) {
                bindJvmNow();
                jvmBound = true;
            }
        } finally {
            jvmLock.unlock();
        }
        return this;
    }

    /**
     * The JVM metrics at the latest when {@code /metrics} is first scraped, so a gateway may bind them after it has
     * started serving ({@link #bindJvm()}, from the background) without a scrape ever missing them: the binders
     * (MXBeans, a GC notification listener) are a few percent of the CPU a start spends before its first answer.
     */
    public GatewayMetrics bindJvmByFirstScrape() {
        jvmWanted = true;
        return this;
    }

    private void bindJvmNow() {
        new JvmMemoryMetrics().bindTo(registry);
        JvmGcMetrics gc = new JvmGcMetrics();
        gc.bindTo(registry);
        gcMetrics = gc;
        new JvmThreadMetrics().bindTo(registry);
        new ClassLoaderMetrics().bindTo(registry);
        new JvmInfoMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        new UptimeMetrics().bindTo(registry);
        new FileDescriptorMetrics().bindTo(registry);
        carrierGauge("loomgate.carrier.parallelism", "Carrier threads the virtual-thread scheduler aims to use",
                CarrierPool::parallelism);
        carrierGauge("loomgate.carrier.pool.size", "Carrier threads started now (NaN before JDK 24)",
                CarrierPool::poolSize);
        carrierGauge("loomgate.virtual.threads.mounted", "Virtual threads on a carrier now (NaN before JDK 24)",
                CarrierPool::mounted);
        carrierGauge("loomgate.virtual.threads.queued",
                "Virtual threads ready and waiting for a carrier (NaN before JDK 24)", CarrierPool::queued);
    }

    /** Registers pool gauges per upstream: {@code loomgate_upstream_connections{upstream,state=idle|in_use}}. */
    public GatewayMetrics bindUpstreams(Upstreams all) {
        return bindUpstreams(() -> all);
    }

    /**
     * Registers pool gauges for each upstream {@code current} supplies now. Each gauge reads the upstream of its id
     * from {@code current} when scraped, so after a live reload it counts the new pools, and 0 once its upstream is
     * gone; call again after a reload to add gauges for new upstream ids (those already registered are kept).
     * The per-endpoint health gauges and ejection counters follow {@code current} by themselves: they are matched
     * to the endpoints served at each scrape ({@link #syncEndpointMeters}).
     */
    public GatewayMetrics bindUpstreams(Supplier<Upstreams> current) {
        Upstreams all = current.get();
        if (all == null) {
            return this;
        }
        upstreamSource = current;
        for (Upstream u : all.all()) {
            upstreamMeters(u.id());
            poolGauge(current, u.id(), "idle", UpstreamPool::idleCount);
            poolGauge(current, u.id(), "in_use", UpstreamPool::inUseCount);
            if (u.pools().stream().anyMatch(p -> p.http2() != null)) {
                // HTTP/2 endpoints: multiplexed connections, and the streams (attempts) on them
                poolGauge(current, u.id(), "http2", UpstreamPool::http2ConnectionCount);
                poolGauge(current, u.id(), "http2_streams", UpstreamPool::http2StreamCount);
            }
        }
        syncEndpointMeters();
        return this;
    }

    /**
     * Makes the per-endpoint meters ({@code loomgate_upstream_endpoint_healthy{route,endpoint}},
     * {@code loomgate_upstream_ejections_total}) match the endpoints served now: new ones (a live reload, a DNS
     * change) get meters, those of endpoints that left are removed. Each meter finds its member anew on every read,
     * so it reports the member serving now, never one a reload replaced. Runs before every scrape; cheap (a walk over
     * the members).
     */
    void syncEndpointMeters() {
        Supplier<Upstreams> source = upstreamSource;
        Upstreams all = source == null ? null : source.get();
        if (all == null) {
            return;
        }
        endpointMetersLock.lock();
        try {
            Set<MemberKey> now = new HashSet<>();
            for (Upstream u : all.all()) {
                for (UpstreamMember m : u.members()) {
                    MemberKey key = new MemberKey(u.id(), m.endpoint().label());
                    now.add(key);
                    if (!memberMeters.containsKey(key)) {
                        memberMeters.put(key, registerMemberMeters(key));
                    }
                }
            }
            memberMeters.entrySet().removeIf(e -> {
                if (now.contains(e.getKey())) {
                    return false;
                }
                e.getValue().forEach(registry::remove);
                return true;
            });
            // A pool's meters go with its endpoint (an address DNS no longer lists, an origin a reload dropped), so
            // the series do not pile up as instances come and go; a late eviction from a draining pool may bring
            // them back until the next scrape.
            Set<Endpoint> pooled = new HashSet<>();
            all.pools().forEach(p -> pooled.add(p.endpoint()));
            endpoints.entrySet().removeIf(e -> {
                if (pooled.contains(e.getKey())) {
                    return false;
                }
                e.getValue().meters().forEach(registry::remove);
                return true;
            });
        } finally {
            endpointMetersLock.unlock();
        }
    }

    /** One endpoint of one route's upstream, as its meters are labelled. */
    private record MemberKey(String upstreamId, String endpoint) {
        /** The member serving under this key now, or null when it left. */
        UpstreamMember find(Supplier<Upstreams> source) {
            Upstreams all = source == null ? null : source.get();
            Upstream u = all == null ? null : all.get(upstreamId);
            if (u == null) {
                return null;
            }
            for (UpstreamMember m : u.members()) {
                if (m.endpoint().label().equals(endpoint)) {
                    return m;
                }
            }
            return null;
        }
    }

    /** Meters that read through this object (held by the registry for as long as it lives), not a member. */
    private List<Meter> registerMemberMeters(MemberKey key) {
        Gauge healthy = Gauge.builder("loomgate.upstream.endpoint.healthy", this, g -> {
                    UpstreamMember m = key.find(g.upstreamSource);
                    return m == null ? Double.NaN : m.healthy() && !m.ejected(System.nanoTime()) ? 1 : 0;
                })
                .description("1 while the endpoint may take the route's traffic (health check passing, not "
                        + "ejected), else 0")
                .tag("route", key.upstreamId()).tag("endpoint", key.endpoint()).register(registry);
        FunctionCounter ejections = FunctionCounter.builder("loomgate.upstream.ejections", this, g -> {
                    UpstreamMember m = key.find(g.upstreamSource);
                    return m == null ? 0 : m.timesEjected();
                })
                .description("Times passive outlier detection ejected the endpoint from the route")
                .tag("route", key.upstreamId()).tag("endpoint", key.endpoint()).register(registry);
        return List.of(healthy, ejections);
    }

    /**
     * Registers {@code loomgate_circuit_breaker_state{breaker}} for each circuit breaker {@code served}'s routes name
     * now, once per name (bounded by the names configurations have used), and reads every such gauge from the routes
     * {@code served} gives at each scrape: 0 closed, 1 half-open, 2 open (forced open too), -1 when no route served
     * names the breaker any more (a reload removed it) or it is in a state of Resilience4j's Loomgate never sets.
     */
    public void bindBreakers(Supplier<List<Route>> served) {
        servedRoutes = served;
        for (Route r : served.get()) {
            var breaker = r.policies().breaker();
            if (breaker != null && breakerGauges.add(breaker.name())) {
                String name = breaker.name();
                Gauge.builder("loomgate.circuit.breaker.state", this, g -> g.breakerState(name))
                        .description("A circuit breaker's state: 0 closed, 1 half-open, 2 open, -1 not served")
                        .tag("breaker", name).register(registry);
            }
        }
    }

    private double breakerState(String name) {
        for (Route r : servedRoutes.get()) {
            var breaker = r.policies().breaker();
            if (breaker != null && breaker.name().equals(name)) {
                return switch (breaker.state()) {
                    case "CLOSED" -> 0;
                    case "HALF_OPEN" -> 1;
                    case "OPEN", "FORCED_OPEN" -> 2;
                    default -> -1;
                };
            }
        }
        return -1;
    }

    /**
     * Counts a configuration reload: {@code loomgate_config_reloads_total{outcome}}; an applied one also moves
     * {@code loomgate_config_generation} on by one.
     */
    public void configReloaded(String outcome) {
        if (outcome.equals("applied")) {
            configGeneration.incrementAndGet();
        }
        Counter.builder("loomgate.config.reloads").description("Configuration reloads by outcome: applied, "
                + "unchanged, invalid (refused, nothing changed), needs_restart (refused, nothing changed), held (drops routes "
                + "or protective filters: applied by the file watch only once the file has stayed the same longer)")
                .tag("outcome", outcome).register(registry).increment();
    }

    /** Registers {@code loomgate_virtual_threads} and {@code loomgate_pinned_events_total} from a started monitor. */
    public GatewayMetrics bindVirtualThreads(PinnedEventMonitor monitor) {
        threadMonitor = monitor;
        Gauge.builder("loomgate.virtual.threads", monitor, PinnedEventMonitor::virtualThreadsAlive)
                .description("The gateway's virtual threads alive (started minus ended, counted where they are"
                        + " made)")
                .register(registry);
        FunctionCounter.builder("loomgate.virtual.threads.started", monitor,
                        PinnedEventMonitor::virtualThreadsStarted)
                .description("The gateway's virtual threads started").register(registry);
        FunctionCounter.builder("loomgate.pinned.events", monitor, PinnedEventMonitor::pinnedTotal)
                .description("Virtual threads that blocked while pinned to their carrier longer than "
                        + monitor.threshold().toMillis() + " ms")
                .register(registry);
        return this;
    }

    /**
     * The Prometheus exposition, in OpenMetrics when the Accept header asks for it, else the text format 0.0.4.
     *
     * @return the content type and the body
     */
    Scrape scrape(String accept) {
        if (jvmWanted) {
            bindJvm();
        }
        syncEndpointMeters();
        String type = accept != null && accept.contains("application/openmetrics-text")
                ? "application/openmetrics-text; version=1.0.0; charset=utf-8"
                : "text/plain; version=0.0.4; charset=utf-8";
        return new Scrape(type, registry.scrape(type));
    }

    record Scrape(String contentType, String body) {
    }

    // ---- ExchangeListener

    @Override
    public void routeMatched(ExchangeView exchange) {
        routeMeters(exchange.routeId()).inFlight.incrementAndGet();
    }

    @Override
    public void upstreamAcquired(ExchangeView exchange, boolean reused) {
        UpstreamMeters m = upstreamMeters(Labels.upstream(exchange.upstreamId()));
        (reused ? m.acquiredReused : m.acquiredFresh).increment();
    }

    @Override
    public void exchangeEnd(ExchangeView exchange) {
        finished(exchange);
    }

    @Override
    public void retry(ExchangeView exchange, String outcome) {
        Counter.builder("loomgate.retries")
                .description("Retry decisions by outcome: retried, exhausted, budget_exhausted, body_too_large, "
                        + "circuit_open")
                .tag("route", exchange.routeId()).tag("outcome", outcome).register(registry).increment();
    }

    @Override
    public void exchangeFailed(ExchangeView exchange) {
        RouteMeters m = finished(exchange);
        ProxyFailure failure = exchange.failure();
        if (failure == null) {
            return;
        }
        m.failed(failure.kind());
        UpstreamErrorKind kind = UpstreamErrorKind.of(failure.kind());
        if (kind != null) {
            upstreamMeters(Labels.upstream(exchange.upstreamId())).error(kind);
        }
        recentErrors.add(new RecentError(Instant.now(), m.routeId, exchange.method(), exchange.target(),
                exchange.upstreamId(), failure.kind().name().toLowerCase(Locale.ROOT), exchange.status(),
                failure.getMessage(), exchange.traceId()));
    }

    private RouteMeters finished(ExchangeView exchange) {
        String routeId = exchange.routeId();
        RouteMeters m = routeMeters(Labels.route(routeId));
        if (routeId != null) {
            m.inFlight.decrementAndGet();
        }
        m.finished(exchange.method(), exchange.status(), exchange.totalNanos(), exchange.upstreamNanos(),
                exchange.bytesIn(), exchange.bytesOut());
        int grpc = exchange.grpcStatus();
        if (grpc >= 0) {
            m.grpcFinished(grpc);
        }
        caches.finished(m.routeId, exchange);
        return m;
    }

    // ---- PoolListener

    @Override
    public void connected(Endpoint endpoint, long connectNanos) {
        endpointMeters(endpoint).connects.record(connectNanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public void connectFailed(Endpoint endpoint, Exception cause) {
        endpointMeters(endpoint).connectFailures.increment();
    }

    @Override
    public void reused(Endpoint endpoint) {
        endpointMeters(endpoint).reused.increment();
    }

    /**
     * Counts on the endpoint's reuse counter, found at the first reuse and kept (endpoint meters are never removed);
     * not before, so that an endpoint's meters still appear with its first event, as the other events make them.
     */
    @Override
    public Runnable reuseAction(Endpoint endpoint) {
        LazyCounters reused = new LazyCounters(1, i -> endpointMeters(endpoint).reused);
        return () -> reused.get(0).increment();
    }

    @Override
    public void evicted(Endpoint endpoint, EvictionReason reason) {
        endpointMeters(endpoint).evicted(reason.label());
    }

    // ---- ConnectionListener

    @Override
    public void connectionOpened(InetSocketAddress remote) {
        clientConnections.incrementAndGet();
        clientOpened.increment();
    }

    @Override
    public void connectionClosed(InetSocketAddress remote, int requests) {
        clientConnections.decrementAndGet();
    }

    @Override
    public void connectionParked() {
        parkedConnections.incrementAndGet();
    }

    @Override
    public void connectionUnparked() {
        parkedConnections.decrementAndGet();
    }

    @Override
    public void connectionRejected(InetSocketAddress remote) {
        clientRejected.increment();
    }

    @Override
    public void tlsHandshakeFailed(InetSocketAddress remote, ConnectionListener.HandshakeFailure why) {
        handshakeFailures.get(why).increment();
    }

    // ---- read side, for the admin endpoints

    int clientConnections() {
        return clientConnections.get();
    }

    CarrierPool carriers() {
        CarrierPool c = carriers;
        if (c == null) { // two threads may both make one: each reads the same bean
            c = new CarrierPool();
            carriers = c;
        }
        return c;
    }

    /** The thread monitor bound with {@link #bindVirtualThreads}, or null. */
    PinnedEventMonitor threadMonitor() {
        return threadMonitor;
    }

    /** The meters of a route, or null if no request has reached it yet. */
    RouteMeters route(String routeId) {
        return routes.get(routeId);
    }

    Collection<RouteMeters> routes() {
        return routes.values();
    }

    UpstreamMeters upstream(String upstreamId) {
        return upstreams.get(upstreamId);
    }

    List<RecentError> recentErrors() {
        return recentErrors.newestFirst();
    }

    /** Registers the meters of a route before its first request, so it shows as zeros rather than missing. */
    public void registerRoute(String routeId) {
        routeMeters(routeId);
    }

    @Override
    public void close() {
        jvmLock.lock();
        try {
            jvmBound = true;
            if (gcMetrics != null) {
                gcMetrics.close();
            }
        } finally {
            jvmLock.unlock();
        }
        registry.close();
    }

    private RouteMeters routeMeters(String routeId) {
        RouteMeters m = routes.get(routeId);
        return m != null ? m : routes.computeIfAbsent(routeId, id -> new RouteMeters(registry, id));
    }

    private UpstreamMeters upstreamMeters(String upstreamId) {
        UpstreamMeters m = upstreams.get(upstreamId);
        return m != null ? m : upstreams.computeIfAbsent(upstreamId, id -> new UpstreamMeters(registry, id));
    }

    private EndpointMeters endpointMeters(Endpoint endpoint) {
        EndpointMeters m = endpoints.get(endpoint);
        return m != null ? m : endpoints.computeIfAbsent(endpoint, e -> new EndpointMeters(registry, e));
    }

    private void poolGauge(Supplier<Upstreams> current, String id, String state,
                           ToDoubleFunction<UpstreamPool> count) {
        // Every applied reload binds again (new upstream ids need gauges); one already there reads the pools of its
        // id from current at each scrape, so it is kept. Registering it again would change nothing but have
        // Micrometer warn "This Gauge has been already registered ... will be ignored" on a gateway's first reload.
        if (registry.find("loomgate.upstream.connections").tags("upstream", id, "state", state).gauge() != null) {
            return;
        }
        Gauge.builder("loomgate.upstream.connections", current, c -> {
                    Upstreams all = c.get();
                    Upstream u = all == null ? null : all.get(id);
                    return u == null ? 0 : u.pools().stream().mapToDouble(count).sum();
                })
                .description("Upstream connections by state; pools are per endpoint, an endpoint shared by two "
                        + "upstreams counts in both")
                .tag("upstream", id).tag("state", state).strongReference(true).register(registry);
    }

    private void carrierGauge(String name, String description, ToDoubleFunction<CarrierPool> value) {
        Gauge.builder(name, carriers(), value).description(description).register(registry);
    }
}
