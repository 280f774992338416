package io.loomgate.it;

import io.loomgate.config.GatewayConfig;
import io.loomgate.observe.AccessLog;
import io.loomgate.observe.AccessLogFormat;
import io.loomgate.observe.AdminHandler;
import io.loomgate.observe.GatewayMetrics;
import io.loomgate.observe.GatewayTelemetry;
import io.loomgate.observe.PinnedEventMonitor;
import io.loomgate.proxy.BoundRoutes;
import io.loomgate.proxy.ExchangeListener;
import io.loomgate.proxy.ProxyHandler;
import io.loomgate.proxy.ProxySettings;
import io.loomgate.route.PredicateContext;
import io.loomgate.route.Route;
import io.loomgate.route.RoutePredicate;
import io.loomgate.route.RouteTable;
import io.loomgate.server.Listener;
import io.loomgate.server.ListenerSettings;
import io.loomgate.server.Transport;
import io.loomgate.testkit.RunningGateway;
import io.loomgate.threads.ConnectionExecutors;
import io.loomgate.threads.ThreadModel;
import io.loomgate.upstream.Endpoint;
import io.loomgate.upstream.PoolSettings;
import io.loomgate.upstream.UpstreamDefinition;
import io.loomgate.upstream.Upstreams;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A gateway in the test's JVM wired through {@link GatewayTelemetry} the way the composition root does it: metrics as
 * exchange, pool and connection listener, the access log (lines kept in memory), the pinned-event monitor, and the
 * admin listener on its own ephemeral port and executor.
 * Built from the core's own classes rather than YAML, so it needs only the proxy, the pools and the listener.
 */
final class ObservedGateway implements AutoCloseable {
    private static final HttpClient CLIENT = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    /** {@code Path=<prefix>/**}. */
    private record PathPrefix(String prefix) implements RoutePredicate {
        @Override
        public boolean test(PredicateContext context) {
            return context.request().path().startsWith(prefix);
        }

        @Override
        public String toString() {
            return "Path=" + prefix + "/**";
        }
    }

    final GatewayTelemetry telemetry;
    final GatewayMetrics metrics;
    final Upstreams upstreams;
    final Listener gateway;
    final Listener admin;
    final List<String> accessLines = new CopyOnWriteArrayList<>();

    /** One route and one upstream (of the same id) per prefix, in order, all to this origin. */
    ObservedGateway(int originPort, AccessLogFormat format, String... routeIdAndPrefix) throws Exception {
        List<Route> routes = new ArrayList<>();
        List<UpstreamDefinition> definitions = new ArrayList<>();
        for (int i = 0; i < routeIdAndPrefix.length; i += 2) {
            String id = routeIdAndPrefix[i];
            routes.add(new Route(id, i, List.of(new PathPrefix(routeIdAndPrefix[i + 1])), List.of(),
                    Duration.ofSeconds(5), true, 0, Duration.ZERO));
            definitions.add(new UpstreamDefinition(id, List.of(new Endpoint("127.0.0.1", originPort)),
                    PoolSettings.DEFAULTS));
        }
        RouteTable table = new RouteTable(routes);
        // The transport the build asks for (-Dloomgate.test.transport), for the listener and the origins' dialer as
        // the composition root sets both from server.transport.
        Transport transport = RunningGateway.transportAsked();
        if (transport == Transport.EPOLL) {
            definitions.replaceAll(d -> d.withSettings(d.settings().withDialer(Transport::connectOnEpoll)));
        }

        PinnedEventMonitor monitor = new PinnedEventMonitor(GatewayConfig.AdminSpec.DEFAULTS.pinnedThreshold(),
                PinnedEventMonitor.DEFAULT_CAPACITY).start();
        GatewayMetrics metrics = new GatewayMetrics().bindJvm().bindVirtualThreads(monitor);
        AccessLog accessLog = new AccessLog(format, 1024, batch -> accessLines.addAll(List.of(batch.split("\n"))),
                metrics.registry()).start();
        telemetry = GatewayTelemetry.of(metrics, accessLog, monitor);
        this.metrics = metrics;
        upstreams = Upstreams.create(definitions, telemetry.poolListener());
        // each route to the upstream named after it, as the assembly pairs them
        ProxyHandler proxy = new ProxyHandler(BoundRoutes.bind(table, r -> upstreams.get(r.id())),
                ProxySettings.DEFAULTS, telemetry.exchangeListener());
        Listener listener = new Listener(ListenerSettings.defaults("127.0.0.1", 0), proxy,
                ConnectionExecutors.create(ThreadModel.VIRTUAL, "gw"), telemetry.connectionListener());
        gateway = (transport == null ? listener : listener.transport(transport)).start();
        if (transport != null && gateway.transport() != transport) {
            gateway.close();
            throw new IllegalStateException("asked for transport " + transport + ", the listener runs on "
                    + gateway.transport());
        }
        admin = telemetry.startAdmin("127.0.0.1", 0, proxy::routes, upstreams, () -> true);
    }

    int port() {
        return gateway.port();
    }

    String adminUrl(String path) {
        return "http://127.0.0.1:" + admin.port() + path;
    }

    HttpResponse<String> admin(String path) throws Exception {
        return CLIENT.send(HttpRequest.newBuilder(URI.create(adminUrl(path))).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Override
    public void close() {
        gateway.close();
        upstreams.close();
        telemetry.close();
    }
}
