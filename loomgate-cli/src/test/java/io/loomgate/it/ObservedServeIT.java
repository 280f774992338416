package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.JarProcess;
import io.loomgate.testkit.PrometheusText;
import io.loomgate.testkit.RawClient;
import io.loomgate.testkit.TestOrigin;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** `serve` as shipped: the admin listener counts exactly what went through, and the access log has a line each. */
class ObservedServeIT {

    @Test
    void metricsHealthAndAccessLogMatchTheTraffic(@TempDir Path dir) throws Exception {
        Path yaml = dir.resolve("gateway.yaml");
        Files.writeString(yaml, """
                server:
                  address: 127.0.0.1
                  port: 0
                admin:
                  port: ${ADMIN_PORT}
                access-log:
                  format: json
                routes:
                  - id: users
                    uri: ${ORIGIN}
                    predicates: [ "Path=/users/**" ]
                """);
        try (TestOrigin origin = new TestOrigin();
             // admin port 0 would turn the admin listener off: a probed port, retried if lost before the bind
             JarProcess gw = JarProcess.listening(Duration.ofSeconds(90), admin -> JarProcess.start(
                     List.of("-Xmx128m"), List.of("serve", "--config", yaml.toString()),
                     Map.of("ORIGIN", origin.uri(), "ADMIN_PORT", Integer.toString(admin))))) {
            int port = gw.awaitListening(Duration.ofSeconds(90));
            int adminPort = gw.adminPort();
            try (RawClient c = new RawClient(port)) {
                for (int i = 0; i < 7; i++) {
                    assertThat(c.send("GET /users/" + i + " HTTP/1.1\r\nHost: h\r\n\r\n").read().status())
                            .isEqualTo(200);
                }
                for (int i = 0; i < 3; i++) {
                    assertThat(c.send("GET /nowhere HTTP/1.1\r\nHost: h\r\n\r\n").read().status()).isEqualTo(404);
                }
            }
            HttpClient http = HttpClient.newHttpClient();
            String admin = "http://127.0.0.1:" + adminPort;
            assertThat(http.send(HttpRequest.newBuilder(URI.create(admin + "/health/ready")).build(),
                    HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(200);
            PrometheusText metrics = new PrometheusText(http.send(HttpRequest.newBuilder(
                    URI.create(admin + "/metrics")).build(), HttpResponse.BodyHandlers.ofString()).body());
            assertThat(metrics.value("loomgate_requests_total", "route=users", "method=GET", "status=2xx"))
                    .isEqualTo(7);
            assertThat(metrics.value("loomgate_requests_total", "route=unmatched", "method=GET", "status=4xx"))
                    .isEqualTo(3);
            // One JSON access-log line per request on stdout, written off the request path (polled, not slept).
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (countLines(gw.output(), "\"url.path\":\"/users/") < 7 && System.nanoTime() < deadline) {
                LockSupport.parkNanos(50_000_000);
            }
            assertThat(countLines(gw.output(), "\"url.path\":\"/users/")).isEqualTo(7);
            assertThat(countLines(gw.output(), "\"url.path\":\"/nowhere\"")).isEqualTo(3);
        }
    }

    private static long countLines(String output, String needle) {
        return output.lines().filter(l -> l.startsWith("{") && l.contains(needle)).count();
    }
}
