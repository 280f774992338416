package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.loomgate.testkit.JarProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code loomgate bench} end to end with tiny sizes: every scenario runs its models in their own processes (gateway,
 * backend, bundled PostgreSQL, load generator), every model serves requests with zero errors, and the reports have
 * the documented structure. Takes about a minute; asserts nothing about speed.
 */
class ShowdownIT {

    @Test
    void aTinyShowdownRunsEveryScenarioAndWritesBothReports(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("bench");
        try (JarProcess bench = JarProcess.start(List.of("-Xmx256m"), List.of("bench", "--out", out.toString(),
                "--connections", "20", "--duration", "1s", "--warmup", "1s", "--heap", "256m",
                "--hello-connections", "5", "--hello-duration", "1s", "--blocking-seconds", "1",
                "--blocking-requests", "4", "--blocking-threads", "2", "--db-connections", "8", "--db-pool", "4",
                "--pinning-connections", "4", "--pinning-ms", "20"), Map.of())) {
            assertThat(bench.awaitExit(Duration.ofMinutes(5))).as(bench.output()).isZero();
            assertThat(bench.output()).contains("proxy: origin latency 100 ms", "x the requests/s of", "pinnedEvents");
        }

        JsonNode report = new ObjectMapper().readTree(out.resolve("bench-report.json").toFile());
        assertThat(report.get("jdk").asText()).isNotBlank();
        assertThat(report.get("cores").asInt()).isPositive();
        assertThat(report.get("commands").size()).isGreaterThan(10);
        List<String> names = new ArrayList<>();
        for (JsonNode scenario : report.get("scenarios")) {
            String name = scenario.get("name").asText();
            names.add(name);
            assertThat(scenario.has("multiplier")).as(name).isTrue();
            assertThat(scenario.get("models").size()).as(name).isEqualTo(2);
            for (JsonNode model : scenario.get("models")) {
                String what = name + " " + model.get("model").asText();
                assertThat(model.get("requests").asLong()).as(what).isPositive();
                assertThat(model.get("errors").asLong()).as(what).isZero();
                assertThat(model.get("requestsPerSecond").asDouble()).as(what).isPositive();
                for (String p : List.of("p50", "p90", "p99", "max")) {
                    assertThat(model.get("latencyMs").get(p).asDouble()).as(what + " " + p).isPositive();
                }
                assertThat(model.has("cpuSeconds")).as(what).isTrue();
                assertThat(model.get("peakRssMb").asDouble()).as(what).isPositive();
                assertThat(model.get("wallSeconds").asDouble()).as(what).isPositive();
            }
        }
        assertThat(names).containsExactly("proxy", "hello", "blocking", "db", "pinning");
        assertThat(report.get("scenarios").get(0).get("limitRequestsPerSecond").asDouble()).isEqualTo(200.0);
        JsonNode pinning = report.get("scenarios").get(4).get("details");
        assertThat(pinning.get("handlerPinnedEvents virtual:pinned").asLong()).isPositive();
        // Only the handler's own wait counts: a loaded JVM may pin once in its own machinery (seen: 1 event).
        assertThat(pinning.get("handlerPinnedEvents virtual:unpinned").asLong()).as(pinning.toString()).isZero();

        String html = Files.readString(out.resolve("bench-report.html"));
        assertThat(html).contains("<svg", "proxy", "pinning").doesNotContain("<script", " src=");
    }
}
