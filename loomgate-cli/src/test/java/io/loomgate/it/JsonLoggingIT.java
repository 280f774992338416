package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.loomgate.testkit.JarProcess;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code logging.format: json} makes every application log line one JSON object; levels are set per package. */
class JsonLoggingIT {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void theApplicationLogIsJsonAndAPackageLevelFromTheConfigApplies(@TempDir Path dir) throws Exception {
        Path yaml = dir.resolve("gateway.yaml");
        Files.writeString(yaml, """
                server:
                  port: 0
                admin:
                  port: 0
                access-log:
                  enabled: false
                logging:
                  format: json
                  levels:
                    io.loomgate.proxy: debug
                routes:
                  - id: only
                    uri: http://127.0.0.1:9
                    predicates: [ "Path=/only/**" ]
                """);
        try (JarProcess gw = JarProcess.start(List.of("-Xmx128m"), List.of("serve", "--config", yaml.toString()),
                Map.of())) {
            int port = gw.awaitListening(Duration.ofSeconds(20));
            HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + port + "/elsewhere")).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).isEqualTo(404);
            List<JsonNode> lines = new ArrayList<>();
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (System.nanoTime() < deadline && lines.stream().noneMatch(JsonLoggingIT::isNoRouteDebug)) {
                lines.clear();
                for (String line : gw.output().lines().filter(l -> l.startsWith("{")).toList()) {
                    lines.add(JSON.readTree(line));
                }
                Thread.sleep(50);
            }
            assertThat(lines).anySatisfy(n -> {
                assertThat(n.path("level").asText()).isEqualTo("INFO");
                assertThat(n.path("formattedMessage").asText()).contains("listening on");
            });
            assertThat(lines).anyMatch(JsonLoggingIT::isNoRouteDebug);
            assertThat(gw.output().lines().filter(l -> l.contains("listening on"))).allMatch(l -> l.startsWith("{"));
        }
    }

    private static boolean isNoRouteDebug(JsonNode n) {
        return n.path("level").asText().equals("DEBUG") && n.path("loggerName").asText().startsWith("io.loomgate.proxy")
                && n.path("formattedMessage").asText().contains("no route");
    }
}
