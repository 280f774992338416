package io.loomgate.cli;

import io.loomgate.config.ConfigException;
import io.loomgate.config.GatewayAssembly;
import io.loomgate.config.GatewayConfig;
import io.loomgate.config.Plugins;
import io.loomgate.config.SelfRoutes;
import io.loomgate.filter.GatewayFilter;
import io.loomgate.observe.HealthProbes;
import io.loomgate.proxy.BoundRoutes;
import io.loomgate.proxy.ExchangeListener;
import io.loomgate.proxy.ProxyHandler;
import io.loomgate.proxy.ProxySettings;
import io.loomgate.ratelimit.RateLimitListener;
import io.loomgate.ratelimit.RateLimiting;
import io.loomgate.resilience.KeptPolicies;
import io.loomgate.resilience.RoutePolicies;
import io.loomgate.route.Route;
import io.loomgate.security.JwksKeySets;
import io.loomgate.security.JwksListener;
import io.loomgate.server.ConnectionListener;
import io.loomgate.server.ExchangeHandler;
import io.loomgate.server.HttpsRedirect;
import io.loomgate.server.Listener;
import io.loomgate.server.Transport;
import io.loomgate.threads.ConnectionExecutors;
import io.loomgate.threads.ThreadModel;
import io.loomgate.tls.ClientTls;
import io.loomgate.tls.ServerTls;
import io.loomgate.tls.ServerTlsSettings;
import io.loomgate.tls.TlsMaterialException;
import io.loomgate.tls.TlsReloader;
import io.loomgate.upstream.Dialer;
import io.loomgate.upstream.JdkDnsCache;
import io.loomgate.upstream.NameResolver;
import io.loomgate.upstream.PoolListener;
import io.loomgate.upstream.UpstreamDefinition;
import io.loomgate.upstream.Upstreams;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running gateway: the composition of a validated configuration into routes, upstream pools, the proxy and the
 * client listener. Lifecycle: {@link #start} → serving, with {@link #reload} swapping routes and upstreams →
 * {@link #drain} (SIGTERM) or {@link #close}. A reload swaps the proxy's routing table ({@link ProxyHandler#swapRoutes})
 * and then the (assembly, upstreams) pair; a request keeps the bound route it matched until it ends. Kept across
 * reloads like the pools of endpoints still named: the JWKS key sets of {@code JwtAuth} sources still named
 * ({@link JwksKeySets}) and the circuit breakers whose name and settings are unchanged ({@link KeptPolicies}).
 */
public final class Gateway implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Gateway.class);
    /** How often certificate files are looked at for changes. */
    private static final Duration TLS_RELOAD_INTERVAL = Duration.ofSeconds(1);
    /** One instance, so pool settings stay equal across reloads (a changed one would reopen the pool). */
    private static final Dialer EPOLL_DIALER = Transport::connectOnEpoll;

    private final GatewayConfig config;
    private final Plugins factories;
    private final ProxyHandler proxy;
    private final PoolListener pools;
    /**
     * TLS to origins (null while no route names an https:// origin): made at start-up, or by the first reload that
     * names one. upstream.ssl cannot change live, so the start-up file's section is every later file's too.
     */
    private volatile ClientTls clientTls;
    /** The connections to origins' transport: server.transport, resolved at start (a change needs a restart). */
    private final Transport upstreamTransport;
    private final Listener listener;
    /** The client listener's TLS (null for plain HTTP): a reload may point it at other certificate files. */
    private final ServerTls serverTls;
    private final RateLimiting rateLimiting;
    private final Listener redirect;
    private final TlsReloader reloader;
    private final JwksKeySets jwks;
    private final KeptPolicies breakers;
    private volatile Serving serving;

    /** What is served now, swapped whole by {@link #reload}: the routes and the upstreams bound to them. */
    private record Serving(GatewayAssembly assembly, Upstreams upstreams) {
    }

    private Gateway(GatewayConfig config, Plugins factories, ProxyHandler proxy, PoolListener pools,
                    ClientTls clientTls, Transport upstreamTransport, Listener listener, ServerTls serverTls,
                    RateLimiting rateLimiting, Listener redirect, TlsReloader reloader, JwksKeySets jwks,
                    KeptPolicies breakers, Serving serving) {
        this.config = config;
        this.factories = factories;
        this.proxy = proxy;
        this.pools = pools;
        this.clientTls = clientTls;
        this.upstreamTransport = upstreamTransport;
        this.listener = listener;
        this.serverTls = serverTls;
        this.rateLimiting = rateLimiting;
        this.redirect = redirect;
        this.reloader = reloader;
        this.jwks = jwks;
        this.breakers = breakers;
        this.serving = serving;
    }

    /** Observers of a gateway, wired in by the composition root. */
    public record Observers(ExchangeListener exchanges, PoolListener pools, ConnectionListener connections,
                            RateLimitListener rateLimits, JwksListener jwks) {
        public static final Observers NONE = new Observers(ExchangeListener.NOOP, PoolListener.NOOP,
                ConnectionListener.NOOP, RateLimitListener.NOOP, JwksListener.NOOP);

        public Observers(ExchangeListener exchanges, PoolListener pools, ConnectionListener connections) {
            this(exchanges, pools, connections, RateLimitListener.NOOP, JwksListener.NOOP);
        }

        public Observers(ExchangeListener exchanges, PoolListener pools, ConnectionListener connections,
                         RateLimitListener rateLimits) {
            this(exchanges, pools, connections, rateLimits, JwksListener.NOOP);
        }
    }

    public static Gateway start(GatewayConfig config, Observers observers) throws ConfigException, IOException {
        return start(config, Plugins.NONE, observers);
    }

    /** Starts with the built-in filters and predicates plus the plugins' (and the rate limiter's). */
    public static Gateway start(GatewayConfig config, Plugins plugins, Observers observers)
            throws ConfigException, IOException {
        return start(config, plugins, observers, NameResolver.JDK);
    }

    /**
     * As {@link #start(GatewayConfig, Plugins, Observers)}, with upstream host names looked up by {@code resolver}
     * (at start, on reloads and on every DNS refresh); tests give one that reads a file they rewrite.
     */
    public static Gateway start(GatewayConfig config, Plugins plugins, Observers observers, NameResolver resolver)
            throws ConfigException, IOException {
        return bind(config, plugins, observers, resolver).startAccepting();
    }

    /**
     * As {@link #start(GatewayConfig, Plugins, Observers)} with the listeners bound but not accepting until
     * {@link #startAccepting()}: the serve command first limits how many connections the listener admits while the
     * rest of the start still needs descriptors, so a crowd of clients waiting in the backlog cannot take them all.
     */
    static Gateway bind(GatewayConfig config, Plugins plugins, Observers observers)
            throws ConfigException, IOException {
        return bind(config, plugins, observers, NameResolver.JDK);
    }

    private static Gateway bind(GatewayConfig config, Plugins plugins, Observers observers, NameResolver resolver)
            throws ConfigException, IOException {
        JdkDnsCache.shorten(); // before the first lookup of the JVM, or it has no effect (see docs/architecture.md)
        RateLimiting rateLimiting = new RateLimiting(config.redis(), observers.rateLimits());
        Plugins factories = plugins.and(Plugins.of(List.of(rateLimiting.filterFactory()), List.of()));
        JwksKeySets jwks = new JwksKeySets(observers.jwks());
        KeptPolicies breakers = new KeptPolicies();
        GatewayAssembly assembly;
        rateLimiting.retain(List.of()); // from now on its local buckets are kept across reloads, as breakers are
        try {
            assembly = factories.assemble(config, jwks, breakers);
        } catch (ConfigException | RuntimeException e) {
            rateLimiting.close();
            throw e;
        }
        warnOfSelfRoutes(config);
        TlsReloader reloader = new TlsReloader(TLS_RELOAD_INTERVAL);
        ClientTls upstreamTls;
        try {
            upstreamTls = clientTls(config, assembly, reloader);
        } catch (IOException e) {
            rateLimiting.close();
            throw e;
        }
        GatewayConfig.ServerSpec s = config.server();
        // Resolved once for the listener and the connections to origins: auto's fallback is one log line, not two.
        Transport transport = s.transport().resolve("listener and connections to origins");
        Upstreams upstreams = Upstreams.create(
                onTransport(withTls(assembly.upstreams(), upstreamTls), transport), observers.pools(),
                resolver);
        // Resolved once, here: each route bound to the upstream built from the definition the assembly paired it with.
        BoundRoutes routes = BoundRoutes.bind(assembly.routes(),
                r -> upstreams.get(assembly.upstreamOf().get(r).id()));
        ProxyHandler proxy = new ProxyHandler(routes,
                new ProxySettings(s.trustedProxies(), s.listener().readTimeout(), s.listener().limits(),
                        s.stripRequestHeaders()),
                observers.exchanges());
        Listener listener = null;
        Listener redirect = null;
        ServerTls serverTls = null;
        try {
            serverTls = config.tls().server() == null ? null : ServerTls.create(config.tls().server());
            if (serverTls != null) {
                serverTls.warmUp(); // the handshake path's classes initialised here, not by the first burst at once
                reloader.watch("server.ssl", serverTls);
            }
            // admin.probe-path: the probes also on this listener, so a pod may keep its admin listener on localhost.
            AtomicReference<Listener> started = new AtomicReference<>();
            String probePath = config.admin().probePath();
            ExchangeHandler handler = probePath == null ? proxy : HealthProbes.onMainListener(probePath, () -> {
                Listener l = started.get();
                return l != null && !l.isStopping();
            }, proxy);
            listener = new Listener(s.listener(), serverTls, handler, ConnectionExecutors.create(s.threads(), "gw"),
                    observers.connections()).transport(transport).bind();
            started.set(listener);
            if (config.tls().httpRedirectPort() != 0) {
                redirect = new Listener(s.listener().withPort(config.tls().httpRedirectPort()),
                        new HttpsRedirect(listener.port()),
                        ConnectionExecutors.create(new ThreadModel.Virtual(), "redirect"),
                        ConnectionListener.NOOP).bind();
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
        return new Gateway(config, factories, proxy, observers.pools(), upstreamTls, transport, listener,
                serverTls, rateLimiting, redirect, reloader.start(), jwks, breakers, new Serving(assembly, upstreams));
    }

    /**
     * The definitions with an https:// endpoint dialling with {@code tls}; the others as they are, so that the first
     * https:// origin made live by a reload changes no plain upstream's settings (which would open its pools anew).
     */
    private static List<UpstreamDefinition> withTls(List<UpstreamDefinition> definitions, ClientTls tls) {
        return definitions.stream()
                .map(d -> tls == null || d.endpoints().stream().noneMatch(e -> e.tls())
                        ? d : d.withSettings(d.settings().withTls(tls)))
                .toList();
    }

    /** The definitions dialling their origins on {@code transport} (resolved: JDK or EPOLL). */
    private static List<UpstreamDefinition> onTransport(List<UpstreamDefinition> definitions, Transport transport) {
        return transport != Transport.EPOLL ? definitions : definitions.stream()
                .map(d -> d.withSettings(d.settings().withDialer(EPOLL_DIALER)))
                .toList();
    }

    /**
     * Builds a new configuration's routes with the factories this gateway started with (built-ins, plugins, the
     * rate limiter, whose Redis store is shared with the running routes, the JWKS key sources of the running
     * {@code JwtAuth} filters). Builds only: nothing is served yet.
     */
    GatewayAssembly assemble(GatewayConfig next) throws ConfigException {
        jwks.retain(servedFilters()); // what an assembly built before and never served is forgotten here
        breakers.retain(servedPolicies());
        rateLimiting.retain(servedFilters());
        GatewayAssembly assembly = factories.assemble(next, jwks, breakers);
        warnOfSelfRoutes(next);
        return assembly;
    }

    /** Routes whose origin is this gateway's own listener: each request would come back and get 508. */
    private static void warnOfSelfRoutes(GatewayConfig config) {
        for (String warning : SelfRoutes.warnings(config)) {
            log.warn(warning);
        }
    }

    /**
     * What a reload did to the upstream pools and the listener's certificates.
     *
     * @param kept         pools of endpoints still named (their connections stay)
     * @param opened       pools of new endpoints, or of endpoints whose pool settings changed
     * @param drained      pools of endpoints no longer named, closing as their last requests end
     * @param certificates the server.ssl certificates now served when the reload changed them, else null
     */
    public record Swap(int kept, int opened, int drained, List<String> certificates) {
    }

    /**
     * Serves a new assembly: upstreams reconciled (pools of endpoints still named kept), routes bound to them and
     * swapped into the proxy in one step, then the pools left behind drained and the JWKS sources no served route
     * names forgotten. Connections, keep-alive or not, are untouched; requests in flight finish on the routes they
     * matched. When {@code nextTls} names other certificate files than the listener serves, they are read before
     * anything is swapped and served to new handshakes after the routes (open connections keep theirs). Not for
     * concurrent use: the reloader calls it under its lock.
     *
     * @param nextTls the new file's {@code server.ssl}; it differs from the running one in its certificates at most
     *                ({@link NonLiveChanges} refused anything else)
     * @throws IllegalArgumentException when the assembly or the certificates cannot be served as they are; nothing
     *                                  changed
     */
    Swap reload(GatewayAssembly next, ServerTlsSettings nextTls) {
        ClientTls tls = clientTls;
        if (tls == null) {
            // The first https:// origin, live: until session 55 refused as needing a restart, the table of
            // configuration.md saying routes and their origins change live.
            try {
                tls = clientTls(config, next, reloader);
            } catch (IOException e) {
                throw new IllegalArgumentException(e.getMessage(), e);
            }
            clientTls = tls; // made and valid whether or not the rest of this reload applies: kept for the next
        }
        boolean newCertificates = serverTls != null && nextTls != null
                && !nextTls.certificates().equals(serverTls.settings().certificates());
        if (newCertificates) {
            // Read first: a file that cannot be used refuses the reload before anything is swapped.
            try {
                ServerTls.create(nextTls);
            } catch (TlsMaterialException e) {
                throw new IllegalArgumentException("server.ssl: " + e.getMessage(), e);
            }
        }
        Serving before = serving;
        Upstreams.Reconciled r = before.upstreams().reconcile(
                onTransport(withTls(next.upstreams(), tls), upstreamTransport), pools);
        // Stamped one generation on from the table it replaces: the exchanges matched from now on report it.
        BoundRoutes routes = BoundRoutes.bind(next.routes(),
                route -> r.next().get(next.upstreamOf().get(route).id()), proxy.routes().generation() + 1);
        proxy.swapRoutes(routes);
        serving = new Serving(next, r.next());
        r.commit();
        jwks.retain(servedFilters());
        breakers.retain(servedPolicies());
        rateLimiting.retain(servedFilters());
        List<String> certificates = null;
        if (newCertificates) {
            try {
                serverTls.replaceCertificates(nextTls);
                reloader.restamp(serverTls);
                certificates = serverTls.subjects();
            } catch (TlsMaterialException e) { // changed on disk since the check above: the old ones stay
                log.warn("server.ssl: the reload's certificates could not be read again, keeping the ones in use: {}",
                        e.getMessage());
            }
        }
        return new Swap(r.kept(), r.opened(), r.left().size(), certificates);
    }

    /** The filters of every route served now. */
    private List<GatewayFilter> servedFilters() {
        return routes().stream().flatMap(r -> r.filters().stream()).toList();
    }

    /** The route policies (breakers, retry budgets) of the routes served now. */
    private List<RoutePolicies> servedPolicies() {
        return routes().stream().map(r -> r.policies()).toList();
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
            tls.warmUp(); // a cold first handshake here, not inside the first dial's connect-timeout
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

    /** The transport of the connections to origins (server.transport, auto resolved). */
    public Transport upstreamTransport() {
        return upstreamTransport;
    }

    /** Starts accepting on the client listener and the redirect listener, if any (once; later calls do nothing). */
    Gateway startAccepting() {
        listener.startAccepting();
        if (redirect != null) {
            redirect.startAccepting();
        }
        return this;
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

    /** The routes served now. */
    public List<Route> routes() {
        return serving.assembly().routes().routes();
    }

    /** The routes served now, each bound to its upstream. */
    public BoundRoutes boundRoutes() {
        return proxy.routes();
    }

    /** The upstreams served now. */
    public Upstreams upstreams() {
        return serving.upstreams();
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
        serving.upstreams().close();
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
        serving.upstreams().close();
        rateLimiting.close();
        reloader.close();
    }

    /** Route ids, for start-up messages. */
    List<String> routeIds() {
        return routes().stream().map(Route::id).toList();
    }
}
