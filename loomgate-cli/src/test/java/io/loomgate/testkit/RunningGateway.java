package io.loomgate.testkit;

import io.loomgate.cli.Gateway;
import io.loomgate.config.ConfigLoader;
import io.loomgate.config.GatewayConfig;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/**
 * A gateway started in the test's JVM from YAML text, on an ephemeral port. {@code ${ORIGIN}} (and any other
 * variable given) is substituted like an environment variable.
 */
public final class RunningGateway implements AutoCloseable {
    private static final HttpClient CLIENT = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER)
            .connectTimeout(Duration.ofSeconds(5)).build();

    private final Gateway gateway;

    private RunningGateway(Gateway gateway) {
        this.gateway = gateway;
    }

    public static RunningGateway start(String yaml, Map<String, String> vars) throws Exception {
        return start(yaml, vars, Gateway.Observers.NONE);
    }

    /** As {@link #start(String, Map)}, with these observers wired in (e.g. a {@code GatewayMetrics}). */
    public static RunningGateway start(String yaml, Map<String, String> vars, Gateway.Observers observers)
            throws Exception {
        Map<String, String> env = new HashMap<>(vars);
        String full = yaml.contains("server:") ? yaml
                : "server:\n  address: 127.0.0.1\n  port: 0\nadmin:\n  port: 0\n" + yaml;
        GatewayConfig cfg = ConfigLoader.parse(full, "test.yaml", env);
        return new RunningGateway(Gateway.start(cfg, observers));
    }

    /** One route {@code Path=/**} to this origin, plus extra YAML lines for the route. */
    public static RunningGateway to(TestOrigin origin, String... routeLines) throws Exception {
        StringBuilder y = new StringBuilder("routes:\n  - id: main\n    uri: ${ORIGIN}\n    predicates: [ \"Path=/**\" ]\n");
        for (String l : routeLines) {
            y.append("    ").append(l).append('\n');
        }
        return start(y.toString(), Map.of("ORIGIN", origin.uri()));
    }

    public int port() {
        return gateway.port();
    }

    public String url(String path) {
        return "http://127.0.0.1:" + port() + path;
    }

    public Gateway gateway() {
        return gateway;
    }

    public HttpResponse<String> get(String path) throws Exception {
        return CLIENT.send(HttpRequest.newBuilder(URI.create(url(path))).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    public HttpResponse<String> send(HttpRequest.Builder request) throws Exception {
        return CLIENT.send(request.timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
    }

    public HttpRequest.Builder request(String path) {
        return HttpRequest.newBuilder(URI.create(url(path)));
    }

    public RawClient raw() throws java.io.IOException {
        return new RawClient(port());
    }

    @Override
    public void close() {
        gateway.close();
    }
}
