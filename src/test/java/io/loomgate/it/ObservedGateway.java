package io.loomgate.it;

import io.loomgate.cli.Gateway;
import io.loomgate.config.ConfigLoader;
import io.loomgate.config.GatewayConfig;
import io.loomgate.observe.AccessLog;
import io.loomgate.observe.AccessLogFormat;
import io.loomgate.observe.AdminHandler;
import io.loomgate.observe.GatewayMetrics;
import io.loomgate.observe.PinnedEventMonitor;
import io.loomgate.proxy.ExchangeListener;
import io.loomgate.server.ConnectionListener;
import io.loomgate.server.Listener;
import io.loomgate.server.ListenerSettings;
import io.loomgate.threads.ConnectionExecutors;
import io.loomgate.threads.ThreadModel;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A gateway in the test's JVM wired with the whole observe package, the way the CLI composes it: metrics as
 * exchange, pool and connection listener, the access log (lines kept in memory), the pinned-event monitor, and the
 * admin listener on its own ephemeral port and executor.
 */
final class ObservedGateway implements AutoCloseable {
    private static final HttpClient CLIENT = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    final GatewayMetrics metrics;
    final AccessLog accessLog;
    final PinnedEventMonitor monitor;
    final Gateway gateway;
    final Listener admin;
    final List<String> accessLines = new CopyOnWriteArrayList<>();

    private ObservedGateway(String yaml, Map<String, String> env, AccessLogFormat format) throws Exception {
        GatewayConfig cfg = ConfigLoader.parse(yaml, "observed.yaml", env);
        monitor = new PinnedEventMonitor().start();
        metrics = new GatewayMetrics().bindJvm().bindVirtualThreads(monitor);
        accessLog = new AccessLog(format, 1024, accessLines::add, metrics.registry()).start();
        gateway = Gateway.start(cfg, new Gateway.Observers(
                ExchangeListener.composite(List.of(metrics, accessLog)), metrics, metrics));
        metrics.bindUpstreams(gateway.upstreams());
        gateway.assembly().routes().routes().forEach(r -> metrics.registerRoute(r.id()));
        admin = new Listener(ListenerSettings.defaults("127.0.0.1", 0),
                new AdminHandler(metrics, gateway.assembly().routes()::routes, gateway.upstreams(), () -> true),
                ConnectionExecutors.create(ThreadModel.VIRTUAL, "admin"), ConnectionListener.NOOP).start();
    }

    /** {@code ${ORIGIN}} in the YAML is the origin's URI. */
    static ObservedGateway start(String routesYaml, String origin, AccessLogFormat format) throws Exception {
        String yaml = "server:\n  address: 127.0.0.1\n  port: 0\nadmin:\n  port: 0\n" + routesYaml;
        return new ObservedGateway(yaml, Map.of("ORIGIN", origin), format);
    }

    int port() {
        return gateway.port();
    }

    HttpResponse<String> admin(String path) throws Exception {
        return CLIENT.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + admin.port() + path))
                .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
    }

    @Override
    public void close() throws Exception {
        admin.close();
        gateway.close();
        accessLog.close();
        monitor.close();
        metrics.close();
    }
}
