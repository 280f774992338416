package com.example.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import io.loomgate.Loomgate;
import io.loomgate.config.ConfigException;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The example, built by the test command and run: its main as a process, and its builder in this JVM. */
class AuditedGatewayTest {
    private HttpServer origin;
    private final List<String> auditIdsSeen = new CopyOnWriteArrayList<>();

    @BeforeEach
    void startOrigin() throws Exception {
        origin = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        origin.createContext("/", x -> {
            auditIdsSeen.add(String.valueOf(x.getRequestHeaders().getFirst("X-Audit-Id")));
            byte[] body = ("origin saw " + x.getRequestURI()).getBytes(StandardCharsets.UTF_8);
            x.sendResponseHeaders(200, body.length);
            x.getResponseBody().write(body);
            x.close();
        });
        origin.start();
    }

    @AfterEach
    void stopOrigin() {
        origin.stop(0);
    }

    private Path config(Path dir, String filters) throws Exception {
        Path yaml = dir.resolve("gateway.yaml");
        Files.writeString(yaml, """
                server:
                  port: 0
                admin:
                  port: 0
                access-log:
                  enabled: false
                routes:
                  - id: payments
                    uri: http://127.0.0.1:%d
                    predicates: [ "Path=/pay/**" ]
                    filters: [ %s ]
                """.formatted(origin.getAddress().getPort(), filters));
        return yaml;
    }

    @Test
    void theExampleMainServesWithItsOwnFilterAndDrainsOnSigterm(@TempDir Path dir) throws Exception {
        Path yaml = config(dir, "\"Audit=payments\"");
        String java = ProcessHandle.current().info().command().orElse("java");
        Process app = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
                AuditedGateway.class.getName(), yaml.toString()).redirectErrorStream(true).start();
        BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        Thread.ofVirtual().start(() -> new BufferedReader(new InputStreamReader(app.getInputStream(),
                StandardCharsets.UTF_8)).lines().forEach(lines::add));
        try {
            int port = awaitPort(lines);
            HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + port + "/pay/42")).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.body()).isEqualTo("origin saw /pay/42");
            assertThat(r.headers().firstValue("X-Audited-By")).hasValue("payments");
            assertThat(auditIdsSeen).singleElement().asString().hasSize(36);
            assertThat(awaitLine(lines, "audit ")).contains("payments GET /pay/42 -> 200");
        } finally {
            app.destroy(); // SIGTERM: the example's shutdown hook drains
        }
        assertThat(app.waitFor(30, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void aBadArgumentToTheCodeFilterIsAConfigErrorWithItsLine(@TempDir Path dir) throws Exception {
        Path yaml = config(dir, "\"Audit=Payments Team\"");
        assertThatThrownBy(() -> Loomgate.builder().config(yaml)
                .filter("Audit", new AuditFilterFactory(s -> { })).start())
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(yaml + ":11:").hasMessageContaining("route 'payments'")
                .hasMessageContaining("team: expected a lower-case name");
    }

    @Test
    void theBuilderStartsInThisJvm(@TempDir Path dir) throws Exception {
        List<String> audit = new CopyOnWriteArrayList<>();
        try (Loomgate gateway = Loomgate.builder().config(config(dir, "\"Audit=ops\""))
                .filter("Audit", new AuditFilterFactory(audit::add)).start()) {
            HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + gateway.port() + "/pay/1")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(r.headers().firstValue("X-Audited-By")).hasValue("ops");
            assertThat(gateway.routeIds()).containsExactly("payments");
            assertThat(audit).singleElement().asString().endsWith("payments GET /pay/1 -> 200");
        }
    }

    private static int awaitPort(BlockingQueue<String> lines) throws InterruptedException {
        String line = awaitLine(lines, "audited gateway serving on port ");
        return Integer.parseInt(line.replaceAll(".*serving on port (\\d+).*", "$1"));
    }

    private static String awaitLine(BlockingQueue<String> lines, String prefix) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        StringBuilder seen = new StringBuilder();
        while (System.nanoTime() < deadline) {
            String line = lines.poll(100, TimeUnit.MILLISECONDS);
            if (line == null) {
                continue;
            }
            seen.append(line).append('\n');
            if (line.startsWith(prefix)) {
                return line;
            }
        }
        throw new AssertionError("no line starting '" + prefix + "' within 30 s; output:\n" + seen);
    }
}
