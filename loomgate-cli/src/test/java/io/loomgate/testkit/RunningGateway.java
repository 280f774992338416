package io.loomgate.testkit;

import io.loomgate.cli.Gateway;
import io.loomgate.cli.ServedGateway;
import io.loomgate.config.ConfigLoader;
import io.loomgate.config.GatewayConfig;
import io.loomgate.config.Plugins;
import io.loomgate.server.Transport;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A gateway started in the test's JVM from YAML text, on an ephemeral port. {@code ${ORIGIN}} (and any other
 * variable given) is substituted like an environment variable. {@code ${TLS_PROVIDER}} defaults to the system
 * property {@value #TLS_PROVIDER_PROPERTY} (else {@code jdk}): the TLS tests put it under {@code server.ssl}, and the
 * build runs them once per provider.
 */
public final class RunningGateway implements AutoCloseable {
    private static final HttpClient CLIENT = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER)
            .connectTimeout(Duration.ofSeconds(5)).build();

    /** The system property that picks {@code server.ssl.provider} for the TLS tests (jdk or conscrypt). */
    public static final String TLS_PROVIDER_PROPERTY = "loomgate.test.tls-provider";
    /** The system property that puts the gateway's listener on another {@code server.transport} (jdk, epoll). */
    public static final String TRANSPORT_PROPERTY = "loomgate.test.transport";

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
        env.putIfAbsent("TLS_PROVIDER", tlsProvider());
        String full = yaml.contains("server:") ? yaml
                : "server:\n  address: 127.0.0.1\n  port: 0\nadmin:\n  port: 0\n" + yaml;
        GatewayConfig cfg = onTransportUnderTest(ConfigLoader.parse(full, "test.yaml", env));
        return new RunningGateway(onTheTransportAsked(Gateway.start(cfg, observers)));
    }

    /** A loaded configuration, on free ports as {@code serve --port 0 --admin-port 0} runs it. */
    public static RunningGateway start(GatewayConfig loaded) throws Exception {
        GatewayConfig cfg = onTransportUnderTest(loaded.with(loaded.server().with(0, loaded.server().threads()),
                loaded.admin().withPort(0)));
        return new RunningGateway(onTheTransportAsked(Gateway.start(cfg, Gateway.Observers.NONE)));
    }

    /**
     * A gateway served as {@code serve} serves it (admin listener, metrics, access log), on the transport under test,
     * with its admin listener on a free port: the YAML names it {@code ${ADMIN_PORT}}. Admin port 0 turns the
     * listener off, so the port is probed before the start, and a start that lost it to another socket meanwhile is
     * made again on another port ({@link FreePorts}); any other failure to start is thrown as it is.
     */
    public static ServedGateway servedWithAdmin(String yaml, String source, Map<String, String> vars)
            throws Exception {
        return servedWithAdmin(yaml, source, vars, Plugins.NONE);
    }

    /** As {@link #servedWithAdmin(String, String, Map)}, with these filters and predicates besides the built-ins. */
    public static ServedGateway servedWithAdmin(String yaml, String source, Map<String, String> vars, Plugins plugins)
            throws Exception {
        return FreePorts.start(admin -> {
            Map<String, String> env = new HashMap<>(vars);
            env.put("ADMIN_PORT", Integer.toString(admin));
            ServedGateway served = ServedGateway.start(onTransportUnderTest(ConfigLoader.parse(yaml, source, env)),
                    plugins);
            try {
                onTheTransportAsked(served.gateway());
            } catch (RuntimeException e) {
                served.close();
                throw e;
            }
            return served;
        });
    }

    /**
     * Fails loudly if the build asked for a transport the listener or the connections to origins are not on (auto
     * falling back, say).
     */
    public static Gateway onTheTransportAsked(Gateway started) {
        String asked = System.getProperty(TRANSPORT_PROPERTY);
        if (asked != null && !asked.isBlank() && (started.listener().transport() != Transport.parse(asked)
                || started.upstreamTransport() != Transport.parse(asked))) {
            started.close();
            throw new IllegalStateException("asked for transport " + asked + ", the listener runs on "
                    + started.listener().transport() + ", the connections to origins on "
                    + started.upstreamTransport());
        }
        return started;
    }

    /**
     * The configuration on the transport the build asks for ({@value #TRANSPORT_PROPERTY}: the suite's subset run
     * once more on epoll), or as it is (its own {@code server.transport}, jdk by default) when none is asked.
     */
    public static GatewayConfig onTransportUnderTest(GatewayConfig cfg) {
        String asked = System.getProperty(TRANSPORT_PROPERTY);
        if (asked == null || asked.isBlank()) {
            return cfg;
        }
        return cfg.with(cfg.server().withTransport(Transport.parse(asked)), cfg.admin());
    }

    /** The transport the build asks for ({@value #TRANSPORT_PROPERTY}), or null when none is asked. */
    public static Transport transportAsked() {
        String asked = System.getProperty(TRANSPORT_PROPERTY);
        if (asked == null || asked.isBlank()) {
            return null;
        }
        Transport t = Transport.parse(asked);
        if (t == null) {
            throw new IllegalArgumentException(TRANSPORT_PROPERTY + ": expected auto, jdk or epoll, got '" + asked + "'");
        }
        return t;
    }

    /** The provider the TLS tests run against in this JVM: jdk unless the build asks for another. */
    public static String tlsProvider() {
        return System.getProperty(TLS_PROVIDER_PROPERTY, "jdk");
    }

    /** One route {@code Path=/**} to this origin, plus extra YAML lines for the route. */
    public static RunningGateway to(TestOrigin origin, String... routeLines) throws Exception {
        return to(origin, List.of(), routeLines);
    }

    /**
     * As {@link #to(TestOrigin, String...)}, with extra YAML lines for the {@code server:} section (a listener on
     * 127.0.0.1, any free port) besides those for the route.
     */
    public static RunningGateway to(TestOrigin origin, List<String> serverLines, String... routeLines)
            throws Exception {
        StringBuilder y = new StringBuilder();
        if (!serverLines.isEmpty()) {
            y.append("server:\n  address: 127.0.0.1\n  port: 0\n");
            for (String l : serverLines) {
                y.append("  ").append(l).append('\n');
            }
            y.append("admin:\n  port: 0\n");
        }
        y.append("routes:\n  - id: main\n    uri: ${ORIGIN}\n    predicates: [ \"Path=/**\" ]\n");
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
