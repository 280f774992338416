package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.cli.ServedGateway;
import io.loomgate.config.ConfigLoader;
import io.loomgate.config.Plugins;
import io.loomgate.observe.ConfigReloads;
import io.loomgate.testkit.FreePorts;
import io.loomgate.testkit.TestOrigin;
import io.loomgate.testkit.TestOrigin.Reply;
import io.loomgate.testkit.TestPki;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A live reload that points a route at the gateway's first https:// origin, and back to http://, with a request in
 * flight; a route that stays on its plain origin keeps its pool and pooled connection (until session 56 every
 * upstream's pools were opened anew at that reload, the TLS to origins having been set on every upstream's settings). Routes and their origins are live (configuration.md); until session 55 the first https:// origin of a
 * gateway that started with none was refused as needing a restart ("the first https:// origin needs upstream TLS,
 * made at start-up"), though {@code upstream.ssl}, which it needs, cannot change live and so was already known.
 */
class FirstHttpsOriginByReloadTest {
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @Test
    void aReloadMovesARouteToTheFirstHttpsOriginAndBackWhileARequestIsInFlight(@TempDir Path dir) throws Exception {
        TestPki pki = TestPki.create("first https origin CA");
        TestPki.Issued identity = pki.issue("origin", "origin.test", "localhost");
        CountDownLatch release = new CountDownLatch(1);
        try (TestOrigin plain = new TestOrigin(); TestOrigin tls = TestOrigin.tls(pki.serverContext(identity), false);
             TestOrigin steady = new TestOrigin()) {
            // The first request is held after its head and two bytes until the reload is done.
            plain.enqueue(Reply.raw("HTTP/1.1 200 OK", List.of("Content-Length: 4"), "he", "ld").gatedBy(release));
            plain.fallback(r -> Reply.ok("plain"));
            tls.fallback(r -> Reply.ok("tls"));
            steady.fallback(r -> Reply.ok("steady"));
            Path file = dir.resolve("gateway.yaml");
            // A second route stays on its plain origin throughout: its pool and pooled connection must be kept.
            String route = "routes:\n  - id: steady\n    uri: " + steady.uri() + "\n    predicates: [ \"Path=/steady/**\" ]\n"
                    + "  - id: moving\n    uri: %s\n    predicates: [ \"Path=/**\" ]\n";
            try (ServedGateway gw = FreePorts.start(admin -> {
                Files.writeString(file, head(admin, pki.caCert()) + route.formatted(plain.uri()));
                return ServedGateway.start(ConfigLoader.load(file), Plugins.NONE, new ServedGateway.Reloading(file,
                        UnaryOperator.identity(), false, false, Duration.ofMillis(50)));
            })) {
                String head = head(gw.adminPort(), pki.caCert());
                assertThat(body(gw, "/steady/before")).isEqualTo("steady");
                CompletableFuture<HttpResponse<String>> inFlight = HTTP.sendAsync(get(gw, "/held"),
                        HttpResponse.BodyHandlers.ofString());
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (plain.requestCount() == 0 && System.nanoTime() - deadline < 0) {
                    LockSupport.parkNanos(10_000_000);
                }
                assertThat(plain.requestCount()).as("the held request reached the plain origin").isEqualTo(1);

                Files.writeString(file, head + route.formatted(tls.uri("localhost")));
                ConfigReloads.Result toHttps = gw.reload();
                assertThat(toHttps.outcome()).as(toHttps.message()).isEqualTo("applied");
                assertThat(toHttps.message()).as("the plain upstreams' pools are kept: only the moved route's is new")
                        .contains("upstream pools kept 1, new 1, draining 1");
                assertThat(body(gw, "/after")).isEqualTo("tls");
                assertThat(body(gw, "/steady/after")).isEqualTo("steady");
                assertThat(steady.connectionCount()).as("the steady route's pooled connection was reused")
                        .isEqualTo(1);

                release.countDown();
                HttpResponse<String> held = inFlight.get(10, TimeUnit.SECONDS);
                assertThat(held.statusCode()).isEqualTo(200);
                assertThat(held.body()).as("the request in flight ends on the origin it started on").isEqualTo("held");

                Files.writeString(file, head + route.formatted(plain.uri()));
                ConfigReloads.Result back = gw.reload();
                assertThat(back.outcome()).as(back.message()).isEqualTo("applied");
                assertThat(body(gw, "/back")).isEqualTo("plain");
                assertThat(tls.received()).extracting(TestOrigin.Recorded::target).containsExactly("/after");
            }
        }
    }

    /**
     * upstream.ssl from the start (it cannot change live): the CA of the https:// origin's certificate. A connect
     * timeout of 10 s: the first handshake with the test's cold TLS origin took over the default 2 s at load 15.
     */
    private static String head(int adminPort, Path ca) {
        return "server:\n  address: 127.0.0.1\n  port: 0\nadmin:\n  address: 127.0.0.1\n  port: " + adminPort
                + "\naccess-log:\n  enabled: false\nupstream:\n  connect-timeout: 10s\n  ssl:\n"
                + "    trust-certificate: " + ca + "\n";
    }

    private static HttpRequest get(ServedGateway gw, String path) {
        return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + gw.port() + path))
                .timeout(Duration.ofSeconds(10)).build();
    }

    private static String body(ServedGateway gw, String path) throws Exception {
        return HTTP.send(get(gw, path), HttpResponse.BodyHandlers.ofString()).body();
    }
}
