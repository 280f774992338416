package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.FreePorts;
import io.loomgate.testkit.JarProcess;
import io.loomgate.testkit.PrometheusText;
import io.loomgate.testkit.TestOrigin;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Live reload on the packaged gateway, under load: the file rewritten again and again (a route added and one removed
 * each time, the stable route's upstream switched between two origins), an invalid file, a file that needs a
 * restart, SIGHUP and POST /reload. The load never sees a failed request, and once a reload has settled every
 * request goes by the new routes.
 *
 * <p>Load: {@value #WORKERS} keep-alive connections sending back to back (the issue asks for 500; 150 keeps this
 * reliable on a shared 2-core CI machine where the gateway, the origins and the clients run together, while still
 * keeping every connection busy across every swap).
 *
 * <p>Every gateway here settles a changed file for 300 ms instead of the default 2 s ({@code --reload-settle}): these tests
 * are about the swap; the window itself, and the default, are ReloadFileSafetyTest's.
 */
class LiveReloadIT {
    static final int WORKERS = 150;
    static final int REWRITES = 50;
    private static final Duration SETTLE = Duration.ofSeconds(30);
    private static final com.fasterxml.jackson.databind.ObjectMapper JSON =
            new com.fasterxml.jackson.databind.ObjectMapper();

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private TestOrigin a;
    private TestOrigin b;
    private TestOrigin c;
    private int adminPort;

    @BeforeEach
    void origins() throws Exception {
        a = named(new TestOrigin(), "A");
        b = named(new TestOrigin(), "B");
        c = named(new TestOrigin(), "C");
    }

    @AfterEach
    void close() throws Exception {
        a.close();
        b.close();
        c.close();
    }

    private static TestOrigin named(TestOrigin o, String name) {
        return o.fallback(r -> TestOrigin.Reply.ok(name + " " + r.target()));
    }

    /** Generation n: stable → A (even) or B (odd), tagged with n; gen-n → C on /gen/n/**. */
    private String generation(int n, String extra) {
        return """
                server:
                  port: 0
                %s
                admin:
                  port: %d
                access-log:
                  enabled: false
                routes:
                  - id: stable
                    uri: %s
                    predicates: [ "Path=/stable/**" ]
                    filters: [ "AddResponseHeader=X-Generation, %d" ]
                  - id: gen-%d
                    uri: %s
                    predicates: [ "Path=/gen/%d/**" ]
                """.formatted(extra, adminPort, (n % 2 == 0 ? a : b).uri(), n, n, c.uri(), n);
    }

    /** As an editor or the kubelet does it: the new file complete, then renamed over the old one. */
    private static void write(Path file, String text) throws Exception {
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        Files.writeString(tmp, text);
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    @Test
    void fiftyRewritesUnderLoadFailNoRequestAndEachSettledReloadServesTheNewRoutes(@TempDir Path dir)
            throws Exception {
        Path yaml = dir.resolve("gateway.yaml");
        // Each generation drops the route of the one before, which the file watch applies only after five settle
        // windows (a file caught half-written drops routes too): a short window keeps fifty rewrites quick. Every
        // generation arrives by an atomic rename, so a window of 50 ms (five: 250 ms) never sees half a file; at
        // 200 ms the rewrites alone took 50 s of the suite.
        try (JarProcess gw = serving(yaml, () -> JarProcess.start(List.of("-Xmx256m"), List.of("serve", "--config",
                yaml.toString(), "--reload-settle", "50ms"), Map.of()))) {
            int port = gw.awaitListening(Duration.ofSeconds(30));
            int admin = gw.adminPort();
            SteadyLoad load = new SteadyLoad(WORKERS, uri(port, "/stable/load"));
            try {
                for (int n = 1; n <= REWRITES; n++) {
                    write(yaml, generation(n, ""));
                    awaitStatus(gw, port, "/gen/" + n + "/probe", 200);
                    HttpResponse<String> stable = get(port, "/stable/check");
                    assertThat(stable.headers().firstValue("X-Generation")).as("generation %d", n).hasValue("" + n);
                    assertThat(stable.body()).startsWith(n % 2 == 0 ? "A " : "B ");
                    assertThat(get(port, "/gen/" + (n - 1) + "/probe").statusCode()).as("route of %d gone", n - 1)
                            .isEqualTo(404);
                }
            } finally {
                load.close();
            }
            assertThat(load.failures()).as("failed requests under reload").isEmpty();
            assertThat(load.ok()).isGreaterThan(REWRITES);
            PrometheusText metrics = new PrometheusText(get(admin, "/metrics").body());
            assertThat(metrics.value("loomgate_config_reloads_total", "outcome=applied")).isEqualTo(REWRITES);
            // Keep-alive connections stayed open across all 50 swaps: about one per worker, plus the probes' one.
            assertThat(metrics.value("loomgate_client_connections_opened_total")).isLessThanOrEqualTo(WORKERS + 10);
            // C is named by every generation: its pool was kept, so its one keep-alive connection served every probe.
            assertThat(c.connectionCount()).as("connections opened to the origin every generation names")
                    .isLessThanOrEqualTo(2);
            assertThat(c.requestCount()).isGreaterThanOrEqualTo(REWRITES);
        }
    }

    @Test
    void anInvalidFileAndOneThatNeedsARestartChangeNothingUnderLoad(@TempDir Path dir) throws Exception {
        Path yaml = dir.resolve("gateway.yaml");
        try (JarProcess gw = serving(yaml, () -> JarProcess.start(List.of("-Xmx256m"), List.of("serve", "--config",
                yaml.toString(), "--reload-settle", "300ms"), Map.of()))) {
            int port = gw.awaitListening(Duration.ofSeconds(30));
            int admin = gw.adminPort();
            SteadyLoad load = new SteadyLoad(WORKERS, uri(port, "/stable/load"));
            try {
                write(yaml, generation(1, "").replace("AddResponseHeader=", "AddResponseHeadr="));
                String invalid = awaitReload(admin, body -> body.contains("\"outcome\":\"invalid\""));
                assertThat(invalid).contains(yaml + ":12:").contains("route 'stable'")
                        .contains("did you mean 'AddResponseHeader'").contains("\"trigger\":\"file\"");
                assertThat(get(admin, "/reload").statusCode()).isEqualTo(422);
                assertThat(get(admin, "/health/ready").statusCode()).isEqualTo(200);
                assertThat(get(port, "/stable/x").headers().firstValue("X-Generation")).hasValue("0");
                assertThat(get(port, "/gen/0/x").statusCode()).isEqualTo(200);
                assertThat(gw.output()).contains("config reload (file) refused, the running configuration is kept: "
                        + yaml + ":12:");

                write(yaml, generation(2, "  threads: platform:16"));
                String restart = awaitReload(admin, body -> body.contains("\"outcome\":\"needs_restart\""));
                assertThat(restart).contains("needs a restart: server.threads (virtual → platform:16)")
                        .contains("nothing was changed");
                assertThat(get(port, "/stable/x").headers().firstValue("X-Generation")).hasValue("0");
                assertThat(get(port, "/gen/2/x").statusCode()).isEqualTo(404);
            } finally {
                load.close();
            }
            assertThat(load.failures()).as("failed requests while bad files were refused").isEmpty();
            PrometheusText metrics = new PrometheusText(get(admin, "/metrics").body());
            assertThat(metrics.value("loomgate_config_reloads_total", "outcome=invalid")).isGreaterThanOrEqualTo(1);
            assertThat(metrics.value("loomgate_config_reloads_total", "outcome=needs_restart")).isEqualTo(1);
        }
    }

    @Test
    void sighupAndPostReloadSwapUnderLoadWithoutTheFileWatch(@TempDir Path dir) throws Exception {
        Path yaml = dir.resolve("gateway.yaml");
        try (JarProcess gw = serving(yaml, () -> JarProcess.start(List.of("-Xmx256m"),
                List.of("serve", "--config", yaml.toString(), "--no-watch", "--reload-settle", "300ms"), Map.of()))) {
            int port = gw.awaitListening(Duration.ofSeconds(30));
            int admin = gw.adminPort();
            SteadyLoad load = new SteadyLoad(WORKERS, uri(port, "/stable/load"));
            try {
                write(yaml, generation(1, ""));
                Process kill = new ProcessBuilder("kill", "-HUP", Long.toString(gw.pid())).inheritIO().start();
                assertThat(kill.waitFor()).isZero();
                awaitStatus(gw, port, "/gen/1/probe", 200);
                assertThat(compact(get(admin, "/reload").body())).contains("\"outcome\":\"applied\"")
                        .contains("\"trigger\":\"signal\"");
                assertThat(get(port, "/stable/x").headers().firstValue("X-Generation")).hasValue("1");

                write(yaml, generation(2, ""));
                HttpResponse<String> post = http.send(HttpRequest.newBuilder(uri(admin, "/reload"))
                        .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
                assertThat(post.statusCode()).isEqualTo(200);
                assertThat(compact(post.body())).contains("\"outcome\":\"applied\"")
                        .contains("\"trigger\":\"admin\"");
                // POST answers after the swap: the new routes serve at once, no polling.
                assertThat(get(port, "/gen/2/probe").statusCode()).isEqualTo(200);
                assertThat(get(port, "/gen/1/probe").statusCode()).isEqualTo(404);
                assertThat(get(port, "/stable/x").body()).startsWith("A ");
            } finally {
                load.close();
            }
            assertThat(load.failures()).as("failed requests across SIGHUP and POST /reload").isEmpty();
            assertThat(gw.output()).contains("SIGHUP received: reloading the certificates and the configuration");
        }
    }

    @Test
    void aSighupInheritedAsIgnoredIsNamedAtStartAndTheFileWatchStillReloads(@TempDir Path dir) throws Exception {
        Path yaml = dir.resolve("gateway.yaml");
        try (JarProcess gw = serving(yaml, () -> JarProcess.startWithHangupIgnored(JarProcess.jar(),
                List.of("-Xmx256m"), List.of("serve", "--config", yaml.toString(), "--reload-settle", "300ms")))) {
            int port = gw.awaitListening(Duration.ofSeconds(30));
            assertThat(gw.output()).contains("SIGHUP is ignored by this process", "a SIGHUP will not reload");
            write(yaml, generation(1, ""));
            awaitStatus(gw, port, "/gen/1/probe", 200);
        }
    }

    @Test
    void aRequestInFlightFinishesOnTheRouteItStartedWith(@TempDir Path dir) throws Exception {
        Path yaml = dir.resolve("gateway.yaml");
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        a.enqueue(TestOrigin.Reply.ok("slow answer from A").gatedBy(release));
        try (JarProcess gw = serving(yaml, () -> JarProcess.start(List.of("-Xmx256m"),
                List.of("serve", "--config", yaml.toString(), "--no-watch", "--reload-settle", "300ms"), Map.of()))) {
            int port = gw.awaitListening(Duration.ofSeconds(30));
            int admin = gw.adminPort();
            var inFlight = http.sendAsync(HttpRequest.newBuilder(uri(port, "/stable/slow")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(a.takeRequest().target()).isEqualTo("/stable/slow");

            write(yaml, generation(1, ""));
            HttpResponse<String> post = http.send(HttpRequest.newBuilder(uri(admin, "/reload"))
                    .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(compact(post.body())).contains("\"outcome\":\"applied\"").contains("draining 1");
            assertThat(get(port, "/stable/new").body()).startsWith("B ");

            release.countDown();
            HttpResponse<String> old = inFlight.get(30, java.util.concurrent.TimeUnit.SECONDS);
            assertThat(old.statusCode()).isEqualTo(200);
            assertThat(old.body()).isEqualTo("slow answer from A");
            assertThat(old.headers().firstValue("X-Generation")).as("the old route's filter ran").hasValue("0");
        }
    }

    /**
     * Writes generation 0 and starts the gateway on it, with the admin listener on a port probed free (port 0 would
     * turn it off; every generation names the same port, which a reload cannot change); a port lost to another
     * socket before the bind is probed and started again ({@link FreePorts}).
     */
    private JarProcess serving(Path yaml, java.util.concurrent.Callable<JarProcess> start) throws Exception {
        return JarProcess.listening(Duration.ofSeconds(30), admin -> {
            adminPort = admin;
            write(yaml, generation(0, ""));
            return start.call();
        });
    }

    private static URI uri(int port, String path) {
        return URI.create("http://127.0.0.1:" + port + path);
    }

    private HttpResponse<String> get(int port, String path) throws Exception {
        return http.send(HttpRequest.newBuilder(uri(port, path)).timeout(Duration.ofSeconds(20)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** Polls until the path answers the status; on failure the gateway's log says what its reloads did. */
    private void awaitStatus(JarProcess gw, int port, String path, int status) throws Exception {
        long deadline = System.nanoTime() + SETTLE.toNanos();
        List<Integer> seen = new ArrayList<>();
        while (System.nanoTime() < deadline) {
            int s = get(port, path).statusCode();
            if (s == status) {
                return;
            }
            seen.add(s);
            Thread.sleep(20);
        }
        throw new AssertionError(path + " never answered " + status + " within " + SETTLE + "; saw " + seen
                + "\n--- gateway output ---\n" + gw.output());
    }

    /** The admin listener's JSON, compacted, so assertions can name {@code "outcome":"applied"}. */
    private static String compact(String json) throws Exception {
        return JSON.writeValueAsString(JSON.readTree(json));
    }

    private String awaitReload(int admin, Predicate<String> done) throws Exception {
        long deadline = System.nanoTime() + SETTLE.toNanos();
        String body = "";
        while (System.nanoTime() < deadline) {
            body = compact(get(admin, "/reload").body());
            if (done.test(body)) {
                return body;
            }
            Thread.sleep(20);
        }
        throw new AssertionError("GET /reload never matched within " + SETTLE + "; last: " + body);
    }
}
