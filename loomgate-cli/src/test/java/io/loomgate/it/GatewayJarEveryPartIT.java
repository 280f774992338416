package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.loomgate.testkit.JarProcess;
import io.loomgate.testkit.Jwts;
import io.loomgate.testkit.PrometheusText;
import io.loomgate.testkit.RedisServer;
import io.loomgate.testkit.TestOrigin;
import io.loomgate.testkit.TestPki;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

/**
 * Every optional part runs from {@code loomgate-gateway.jar} itself, which leaves out jackson-databind and unused
 * parts of its libraries to stay under 10 MB (loomgate-cli/pom.xml, the gateway execution's filters; GatewayJarIT
 * checks the size). The other jar-based tests run {@code loomgate.jar}, which keeps everything, so this one is what
 * would fail if a trim took something a feature needs: one {@code serve} with a TLS listener on Conscrypt (its native
 * library loaded from the jar), JwtAuth with a JWKS file, the Redis rate limiter, a CircuitBreaker, the JSON access
 * log, the JSON app log (Logback configured from logback.xml, Elastic's ECS encoder) and the admin endpoints (JSON and
 * Prometheus text); then {@code import-scg}, which writes YAML. (TracingJaegerIT runs tracing from this jar.)
 */
class GatewayJarEveryPartIT {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void everyOptionalPartRunsFromTheGatewayJar(@TempDir Path dir) throws Exception {
        TestPki pki = TestPki.create("Gateway jar CA");
        TestPki.Issued server = pki.issue("gw", "localhost", "localhost");
        Jwts.SigningKey key = Jwts.rsa("gateway-jar-it");
        Files.writeString(dir.resolve("jwks.json"), Jwts.jwks(key));
        Path yaml = dir.resolve("gateway.yaml");
        Files.writeString(yaml, """
                server:
                  address: 127.0.0.1
                  port: 0
                  # The TLS handshake is bounded by the head's deadline (10 s by default): on a loaded machine this
                  # cold JVM's first handshake outlasted it (the client saw a broken pipe). This test is about parts.
                  header-timeout: 60s
                  ssl:
                    provider: conscrypt
                    certificate: %s
                    certificate-private-key: %s
                admin:
                  port: ${ADMIN_PORT}
                access-log:
                  format: json
                logging:
                  format: json
                redis:
                  url: ${REDIS_URL}
                  timeout: 2s
                routes:
                  - id: api
                    uri: ${ORIGIN}
                    predicates: [ "Path=/api/**" ]
                    filters:
                      - name: JwtAuth
                        args: { jwks-file: %s }
                      - name: RequestRateLimiter
                        args: { replenish-rate: 1, burst-capacity: 1000, key-resolver: "header:X-Api-Key",
                                store: redis }
                      - name: CircuitBreaker
                        args: { name: api-cb }
                """.formatted(server.cert(), server.key(), dir.resolve("jwks.json")));
        try (RedisServer redis = RedisServer.start(); TestOrigin origin = new TestOrigin();
             // admin port 0 would turn the admin listener off: a probed port, retried if lost before the bind
             JarProcess gw = JarProcess.listening(Duration.ofSeconds(60), admin -> JarProcess.start(
                     JarProcess.gatewayJar(), List.of("-Xmx128m"), List.of("serve", "--config", yaml.toString()),
                     Map.of("ORIGIN", origin.uri(), "REDIS_URL", redis.url(), "ADMIN_PORT", Integer.toString(admin))));
             Jedis direct = new Jedis("127.0.0.1", redis.port())) {
            int port = gw.awaitListening(Duration.ofSeconds(60));
            int adminPort = gw.adminPort();
            HttpClient https = HttpClient.newBuilder().sslContext(pki.clientContext(null))
                    .connectTimeout(Duration.ofSeconds(20)).build();
            URI api = URI.create("https://localhost:" + port + "/api/items");
            HttpResponse<String> allowed = https.send(HttpRequest.newBuilder(api).timeout(Duration.ofSeconds(30))
                    .header("Authorization", "Bearer " + key.token()).header("X-Api-Key", "alice").build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(allowed.statusCode()).as(allowed.body()).isEqualTo(200);
            assertThat(allowed.body()).isEqualTo("hello from origin");
            HttpResponse<String> anonymous = https.send(HttpRequest.newBuilder(api).timeout(Duration.ofSeconds(30))
                    .header("X-Api-Key", "alice").build(), HttpResponse.BodyHandlers.ofString());
            assertThat(anonymous.statusCode()).isEqualTo(401);
            // The rate limiter counted alice in Redis (SCG's keys: request_rate_limiter.{key}.tokens, kept for twice
            // the 1000 s the bucket takes to fill).
            assertThat(direct.keys("*alice*")).isNotEmpty();

            HttpClient http = HttpClient.newHttpClient();
            String admin = "http://127.0.0.1:" + adminPort;
            PrometheusText metrics = new PrometheusText(get(http, admin + "/metrics"));
            assertThat(metrics.value("loomgate_requests_total", "route=api", "method=GET", "status=2xx"))
                    .isEqualTo(1);
            assertThat(metrics.value("loomgate_ratelimit_requests_total", "route=api", "outcome=allowed"))
                    .isGreaterThanOrEqualTo(1);
            JsonNode routes = JSON.readTree(get(http, admin + "/routes"));
            assertThat(routes.get(0).path("id").asText()).isEqualTo("api");
            assertThat(routes.get(0).path("filters").toString()).contains("JwtAuth", "RequestRateLimiter");
            assertThat(routes.get(0).path("policies").toString()).contains("api-cb");
            assertThat(JSON.readTree(get(http, admin + "/api/stats")).path("routes").isArray()).isTrue();

            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (!gw.output().contains("\"url.path\":\"/api/items\"") && System.nanoTime() < deadline) {
                LockSupport.parkNanos(50_000_000);
            }
            assertThat(gw.output()).contains("\"url.path\":\"/api/items\"");
            // The app log's lines are ECS documents, the listener's start among them.
            assertThat(gw.output().lines().filter(l -> l.startsWith("{")).map(GatewayJarEveryPartIT::json)
                    .filter(n -> "loomgate.app".equals(n.path("event.dataset").asText())).map(n -> n.path("message")
                            .asText())).as(gw.output()).anyMatch(m -> m.contains("loomgate listening on"));
        }

        Path scg = dir.resolve("application.yml");
        Files.writeString(scg, """
                spring:
                  cloud:
                    gateway:
                      routes:
                        - id: users
                          uri: http://users:8080
                          predicates:
                            - Path=/users/**
                """);
        Process p = new ProcessBuilder(JarProcess.javaBinary(), "-jar", JarProcess.gatewayJar().toString(),
                "import-scg", scg.toString()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor()).as(out).isZero();
        assertThat(out).contains("routes:", "- id: users", "uri: http://users:8080", "Path=/users/**");
    }

    private static JsonNode json(String line) {
        try {
            return JSON.readTree(line);
        } catch (IOException notJson) {
            return JSON.missingNode();
        }
    }

    private static String get(HttpClient http, String uri) throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(uri)).timeout(Duration.ofSeconds(30))
                .build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(uri + ": " + r.body()).isEqualTo(200);
        return r.body();
    }
}
