package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.loomgate.testkit.EcsSchema;
import io.loomgate.testkit.JarProcess;
import io.loomgate.testkit.TestOrigin;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code logging.format: json} and {@code access-log.format: json} write one schema, ECS: the gateway jar as a
 * process, its lines read by Jackson field by field and by Python's jsonschema against the schema of the fields; both
 * logs carry the trace the origin received and the same span of the gateway's own. Levels are set per package.
 */
class JsonLoggingIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";

    @Test
    void theAppLogAndTheAccessLogAreEcsWithTheTraceTheOriginSaw(@TempDir Path dir) throws Exception {
        try (TestOrigin origin = new TestOrigin()) {
            Path yaml = dir.resolve("gateway.yaml");
            Files.writeString(yaml, """
                    server:
                      port: 0
                    admin:
                      port: 0
                    access-log:
                      enabled: true
                      format: json
                    logging:
                      format: json
                      levels:
                        io.loomgate.proxy: debug
                    routes:
                      - id: live
                        uri: %s
                        predicates: [ "Path=/live/**" ]
                      - id: refused
                        uri: http://127.0.0.1:9
                        predicates: [ "Path=/refused/**" ]
                    """.formatted(origin.uri()));
            try (JarProcess gw = JarProcess.start(List.of("-Xmx128m"), List.of("serve", "--config", yaml.toString()),
                    Map.of())) {
                int port = gw.awaitListening(Duration.ofSeconds(90)); // generous: a loaded machine starts the jar slowly
                HttpClient client = HttpClient.newHttpClient();
                String base = "http://127.0.0.1:" + port;
                HttpResponse<String> live = client.send(HttpRequest.newBuilder(URI.create(base + "/live/x?y=1"))
                        .header("traceparent", "00-" + TRACE + "-00f067aa0ba902b7-01")
                        .header("User-Agent", "json-logging-it").build(), HttpResponse.BodyHandlers.ofString());
                assertThat(live.statusCode()).isEqualTo(200);
                String sent = origin.takeRequest().header("traceparent");
                assertThat(sent).startsWith("00-" + TRACE + "-").doesNotContain("00f067aa0ba902b7");
                assertThat(client.send(HttpRequest.newBuilder(URI.create(base + "/refused/y")).build(),
                        HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(502);
                assertThat(client.send(HttpRequest.newBuilder(URI.create(base + "/elsewhere")).build(),
                        HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(404);

                List<JsonNode> lines = awaitLines(gw, all -> all.stream().filter(JsonLoggingIT::isAccess).count() == 3
                        && all.stream().anyMatch(JsonLoggingIT::isNoRouteDebug)
                        && all.stream().anyMatch(JsonLoggingIT::isRefusedWarning));
                assertThat(gw.output().lines().filter(l -> l.contains("listening on"))).allMatch(l -> l.startsWith("{"));
                EcsSchema.assertValid(gw.output().lines().filter(l -> l.startsWith("{")).toList());
                for (JsonNode n : lines) {
                    Instant.parse(n.get("@timestamp").asText()); // ISO-8601, or it throws
                    assertThat(n.get("ecs.version").asText()).isEqualTo("1.2.0");
                    assertThat(n.get("service.name").asText()).isEqualTo("loomgate");
                }
                assertThat(lines).anySatisfy(n -> {
                    assertThat(n.get("log.level").asText()).isEqualTo("INFO");
                    assertThat(n.get("event.dataset").asText()).isEqualTo("loomgate.app");
                    assertThat(n.get("message").asText()).contains("listening on");
                    assertThat(n.has("trace.id")).isFalse(); // no exchange was being handled
                });

                JsonNode liveLine = access(lines, "/live/x?y=1");
                assertThat(liveLine.get("http.request.method").asText()).isEqualTo("GET");
                assertThat(liveLine.get("url.path").asText()).isEqualTo("/live/x");
                assertThat(liveLine.get("url.query").asText()).isEqualTo("y=1");
                assertThat(liveLine.get("http.response.status_code").asInt()).isEqualTo(200);
                assertThat(liveLine.get("user_agent.original").asText()).isEqualTo("json-logging-it");
                assertThat(liveLine.get("client.address").asText()).isEqualTo("127.0.0.1");
                assertThat(liveLine.get("event.duration").asLong()).isPositive();
                assertThat(liveLine.get("loomgate.route").asText()).isEqualTo("live");
                assertThat(liveLine.get("trace.id").asText()).isEqualTo(TRACE);
                // The gateway's own span, not the client's: the trace goes on through the gateway. (The origin sees
                // this id as its parent, or, with a tracer, the id of an attempt's client span under it.)
                assertThat(liveLine.get("span.id").asText()).matches("[0-9a-f]{16}").isNotEqualTo("00f067aa0ba902b7");

                // The warning for the refused origin was written while its exchange was handled: its ids are there
                // and they are its access line's.
                JsonNode refused = access(lines, "/refused/y");
                JsonNode warning = lines.stream().filter(JsonLoggingIT::isRefusedWarning).findFirst().orElseThrow();
                assertThat(refused.get("loomgate.failure").asText()).isEqualTo("connect_refused");
                assertThat(warning.get("trace.id").asText()).matches("[0-9a-f]{32}")
                        .isEqualTo(refused.get("trace.id").asText()).isNotEqualTo(TRACE);
                assertThat(warning.get("span.id").asText()).matches("[0-9a-f]{16}")
                        .isEqualTo(refused.get("span.id").asText());
                assertThat(warning.get("log.logger").asText()).startsWith("io.loomgate.proxy");
                assertThat(warning.get("process.thread.name").asText()).isNotEmpty();

                // No route: the gateway answered it itself, and it is still an exchange with its trace (a server span
                // when tracing is on): its access line and the debug line written while it was handled carry the same
                // trace id, its own, not the refused exchange's (the ids of that one left the MDC when it ended).
                JsonNode missing = access(lines, "/elsewhere");
                assertThat(missing.get("loomgate.failure").asText()).isEqualTo("no_route");
                assertThat(missing.get("trace.id").asText()).matches("[0-9a-f]{32}")
                        .isNotEqualTo(refused.get("trace.id").asText());
                assertThat(lines.stream().filter(JsonLoggingIT::isNoRouteDebug)).isNotEmpty()
                        .allSatisfy(n -> assertThat(n.path("trace.id").asText())
                                .isEqualTo(missing.get("trace.id").asText()));
            }
        }
    }

    /** Polls the process's output until {@code done} holds for its JSON lines (30 s at most). */
    private static List<JsonNode> awaitLines(JarProcess gw, Predicate<List<JsonNode>> done) throws Exception {
        List<JsonNode> lines = new ArrayList<>();
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (System.nanoTime() < deadline) {
            lines.clear();
            for (String line : gw.output().lines().filter(l -> l.startsWith("{")).toList()) {
                lines.add(JSON.readTree(line));
            }
            if (done.test(lines)) {
                return lines;
            }
            Thread.sleep(50);
        }
        throw new AssertionError("the expected log lines did not all arrive within 30 s:\n" + gw.output());
    }

    private static JsonNode access(List<JsonNode> lines, String target) {
        return lines.stream().filter(n -> isAccess(n) && n.path("url.original").asText().equals(target)).findFirst()
                .orElseThrow(() -> new AssertionError("no access line for " + target + " in " + lines));
    }

    private static boolean isAccess(JsonNode n) {
        return n.path("event.dataset").asText().equals("loomgate.access");
    }

    private static boolean isNoRouteDebug(JsonNode n) {
        return n.path("log.level").asText().equals("DEBUG") && n.path("log.logger").asText().startsWith("io.loomgate.proxy")
                && n.path("message").asText().contains("no route");
    }

    private static boolean isRefusedWarning(JsonNode n) {
        return n.path("log.level").asText().equals("WARN") && n.path("message").asText().contains("/refused/y");
    }
}
