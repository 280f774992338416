package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.JarProcess;
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
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The features a deployment turns on together, on the packaged gateway, on each TLS provider: a TLS listener (h2 by
 * ALPN) whose route has {@code Retry}, {@code CircuitBreaker} and a Redis {@code RequestRateLimiter} (a real
 * redis-server), with the JSON access log and the admin's metrics. h2load POSTs 4 KB bodies while the file is edited
 * (a live reload in the middle of the load), then again while SIGTERM drains the gateway. What the client got, the
 * access log's lines and the metrics must agree: every POST answered 200 and logged once, under one of the two
 * configuration generations, counted by the request and limiter metrics, no retry and a closed breaker; at SIGTERM
 * every request h2load got a 2xx for has its 200 line and no other line is written, and the drain ends clean. Session
 * 60 (combo11) ran it by hand on JSSE only; session 61 made it this test, for both providers.
 */
class TlsCombinedReloadDrainIT {
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private static final Pattern TWO_XX = Pattern.compile("status codes: (\\d+) 2xx");
    private static final int POSTS = 1_500;

    private static String yaml(int burst) {
        return """
                server:
                  address: 127.0.0.1
                  port: 0
                  drain-timeout: 10s
                  ssl:
                    certificate: srv.crt
                    certificate-private-key: srv.key
                    provider: ${PROVIDER}
                admin:
                  port: ${ADMIN_PORT}
                access-log:
                  enabled: true
                  format: json
                redis:
                  url: ${REDIS_URL}
                  timeout: 500ms
                routes:
                  - id: echo
                    uri: ${ORIGIN}
                    predicates: [ "Path=/e/**" ]
                    filters:
                      - "Retry=2,SERVICE_UNAVAILABLE,GET"
                      - name: CircuitBreaker
                        args: { name: echo-cb, statusCodes: [ 503 ], minimum-calls: 20, sliding-window: 20 }
                      - name: RequestRateLimiter
                        args: { replenish-rate: 100000, burst-capacity: 100000, key-resolver: route, store: redis }
                  - id: rl
                    uri: ${ORIGIN}
                    predicates: [ "Path=/rl/**" ]
                    filters:
                      - name: RequestRateLimiter
                        args: { replenish-rate: 5, burst-capacity: %d, key-resolver: route, store: redis }
                """.formatted(burst);
    }

    @ParameterizedTest(name = "provider {0}")
    @ValueSource(strings = {"jdk", "conscrypt"})
    void answersAccessLinesAndMetricsAgreeAcrossAReloadAndSigterm(String provider, @TempDir Path dir)
            throws Exception {
        TestPki.requireTool("h2load", "--version");
        TestPki pki = TestPki.create("Combined IT CA");
        TestPki.Issued srv = pki.issue("srv", "localhost");
        Files.copy(srv.cert(), dir.resolve("srv.crt"));
        Files.copy(srv.key(), dir.resolve("srv.key"));
        Path config = dir.resolve("gateway.yaml");
        Files.writeString(config, yaml(10));
        Path body = dir.resolve("4k.bin");
        Files.write(body, new byte[4096]);
        try (RedisServer redis = RedisServer.start(); TestOrigin origin = new TestOrigin();
             JarProcess gw = JarProcess.listening(Duration.ofSeconds(60), admin -> JarProcess.start(
                     List.of("-Xmx256m"), List.of("serve", "--config", config.toString(), "--reload-settle", "50ms"),
                     Map.of("ORIGIN", origin.uri(), "REDIS_URL", redis.url(), "PROVIDER", provider,
                             "ADMIN_PORT", Integer.toString(admin))))) {
            int port = gw.awaitListening(Duration.ofSeconds(60));
            int admin = gw.adminPort();
            // an explicit provider that cannot run is refused at start-up (docs/configuration.md): it is this one
            String url = "https://localhost:" + port + "/e/x";

            // 1. A live reload (the rl route's burst 10 -> 20) in the middle of the load.
            Process load = h2load(url, body, POSTS);
            await(() -> echoLines(gw) >= POSTS / 3, "a third of the POSTs logged");
            Files.writeString(config, yaml(20));
            String loaded = finish(load);
            assertThat(twoXx(loaded)).as("h2load: %s", loaded).isEqualTo(POSTS);
            await(() -> metrics(admin).toString().lines().anyMatch(l -> l.startsWith("loomgate_config_reloads_total{")
                    && l.contains("outcome=\"applied\"") && l.endsWith(" 1.0")), "the reload applied");
            await(() -> echoLines(gw) == POSTS, "one access line per POST");
            List<String> lines = lines(gw);
            assertThat(lines).allMatch(l -> l.contains("\"http.response.status_code\":200,"), "all 200")
                    .allMatch(l -> l.contains("\"http.request.body.bytes\":4096"), "each with its 4,096 bytes")
                    .noneMatch(l -> l.contains("loomgate.failure"));
            long second = lines.stream().filter(l -> l.contains("\"loomgate.config_generation\":2")).count();
            long first = lines.stream().filter(l -> l.contains("\"loomgate.config_generation\":1")).count();
            assertThat(first + second).as("each line under one of the two configurations").isEqualTo(POSTS);
            assertThat(second).as("some served after the reload (the load went on after the edit)").isPositive();
            PrometheusText m = metrics(admin);
            assertThat(m.value("loomgate_requests_total", "route=echo", "method=POST", "status=2xx"))
                    .isEqualTo(POSTS);
            assertThat(m.value("loomgate_ratelimit_requests_total", "route=echo", "outcome=allowed"))
                    .as("the Redis limiter asked once per POST").isEqualTo(POSTS);
            assertThat(m.value("loomgate_circuit_breaker_state", "breaker=echo-cb")).as("closed").isZero();
            assertThat(m.toString()).as("nothing retried").doesNotContain("loomgate_retries_total{");
            assertThat(origin.requestCount()).isEqualTo(POSTS);

            // 2. SIGTERM in the middle of the load: what h2load got answered is what the access log says.
            Process more = h2load(url, body, 50_000);
            await(() -> echoLines(gw) >= POSTS + 500, "500 more POSTs logged");
            gw.terminate();
            assertThat(gw.awaitExit(Duration.ofSeconds(30))).as("exit status").isZero();
            String cut = finish(more);
            List<String> after = lines(gw).subList(POSTS, echoLines(gw));
            assertThat(after).as("every line a 200").allMatch(l -> l.contains("\"http.response.status_code\":200,"));
            assertThat(after).as("a line for each 2xx h2load got, and no more: %s", cut).hasSize(twoXx(cut));
            assertThat(gw.output()).contains("drained cleanly");
            System.out.printf("provider %s: %d POSTs, %d lines under generation 1, %d under 2; at SIGTERM h2load got %d"
                    + " 2xx (%s), %d lines%n", provider, POSTS, first, second, twoXx(cut),
                    cut.lines().filter(l -> l.startsWith("requests:")).findFirst().orElse("?"), after.size());
        }
    }

    private static Process h2load(String url, Path body, int requests) throws IOException {
        return new ProcessBuilder("nice", "h2load", "-n", Integer.toString(requests), "-c", "10", "-m", "10",
                "-d", body.toString(), url).redirectErrorStream(true).start();
    }

    private static String finish(Process p) throws Exception {
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("h2load ended").isTrue();
        return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    }

    private static int twoXx(String h2loadOutput) {
        Matcher m = TWO_XX.matcher(h2loadOutput);
        assertThat(m.find()).as("h2load's status line in: %s", h2loadOutput).isTrue();
        return Integer.parseInt(m.group(1));
    }

    /** The access log's lines for the echo route, in order. */
    private static List<String> lines(JarProcess gw) throws IOException {
        return gw.output().lines().filter(l -> l.startsWith("{") && l.contains("\"url.path\":\"/e/x\"")).toList();
    }

    private static int echoLines(JarProcess gw) {
        try {
            return lines(gw).size();
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    private static PrometheusText metrics(int admin) {
        try {
            return new PrometheusText(HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + admin
                    + "/metrics")).timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString())
                    .body());
        } catch (Exception e) {
            throw new AssertionError("scraping /metrics failed", e);
        }
    }

    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("not within 60 s: %s", what).isLessThan(deadline);
            Thread.sleep(20);
        }
    }
}
