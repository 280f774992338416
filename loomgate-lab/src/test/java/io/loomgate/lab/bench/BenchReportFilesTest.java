package io.loomgate.lab.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The report's JSON keys stay as scripts expect, the HTML fetches nothing, and the console table says it all. */
class BenchReportFilesTest {

    private static BenchReport report() {
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("originLatencyMs", 100L);
        details.put("errors platform:200", "connect 0, timeout 12, reset 0, non-2xx 0");
        BenchReport.ScenarioResult proxy = new BenchReport.ScenarioResult("proxy", 2000, 20_000.0, 7.5, List.of(
                new BenchReport.ModelResult("platform:200", 15_000, 1_900.5, 12,
                        new BenchReport.LatencyMs(104, 110, 180, 5000), 1.9, 350, 8),
                new BenchReport.ModelResult("virtual", 110_000, 14_250.0, 0,
                        new BenchReport.LatencyMs(105, 120, 190, 400), 6.1, 700, 8)), details);
        BenchReport.ScenarioResult hello = new BenchReport.ScenarioResult("hello", 10, null, 0.9, List.of(
                new BenchReport.ModelResult("cached", 1, 1, 0, new BenchReport.LatencyMs(0.1, 0.2, 0.3, 1), 1, 1, 1),
                new BenchReport.ModelResult("virtual", 1, 0.9, 0, new BenchReport.LatencyMs(0.1, 0.2, 0.3, 1), 1, 1,
                        1)), new LinkedHashMap<>());
        return new BenchReport("25", 2, "1g", "2026-11-21T20:00:00Z", List.of("java -jar loomgate.jar serve <x>"),
                List.of(proxy, hello));
    }

    @Test
    void theJsonHasExactlyTheDocumentedKeys() throws Exception {
        ObjectMapper json = new ObjectMapper();
        JsonNode root = json.readTree(json.writeValueAsString(report()));
        assertThat(root.has("jdk")).isTrue();
        assertThat(root.get("cores").asInt()).isEqualTo(2);
        JsonNode proxy = root.get("scenarios").get(0);
        assertThat(proxy.get("name").asText()).isEqualTo("proxy");
        assertThat(proxy.get("limitRequestsPerSecond").asDouble()).isEqualTo(20_000.0);
        assertThat(proxy.get("multiplier").asDouble()).isEqualTo(7.5);
        JsonNode model = proxy.get("models").get(1);
        assertThat(fieldNames(model)).containsExactly("model", "requests", "requestsPerSecond", "errors", "latencyMs",
                "cpuSeconds", "peakRssMb", "wallSeconds");
        assertThat(fieldNames(model.get("latencyMs"))).containsExactly("p50", "p90", "p99", "max");
        assertThat(model.get("model").asText()).isEqualTo("virtual");
        // No limit line where none exists.
        assertThat(root.get("scenarios").get(1).has("limitRequestsPerSecond")).isFalse();
    }

    @Test
    void theHtmlIsSelfContained() {
        String html = HtmlReport.render(report());
        assertThat(html).startsWith("<!doctype html>").contains("<svg", "proxy", "hello", "14,250.0",
                "java -jar loomgate.jar serve &lt;x&gt;");
        assertThat(html).doesNotContain("<script", " src=", " href=", "@import", "url(");
    }

    @Test
    void theConsoleTableShowsTheModelsTheMultiplierAndTheErrors() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        ConsoleTable.print(report().scenarios().get(0), new PrintStream(bytes, true, StandardCharsets.UTF_8));
        String table = bytes.toString(StandardCharsets.UTF_8);
        assertThat(table).contains("proxy: origin latency 100 ms, 2000 connections, limit 20,000 req/s",
                "platform:200", "virtual", "14,250.0", "virtual: 7.50x the requests/s of platform:200",
                "errors platform:200: connect 0, timeout 12");
    }

    @Test
    void theGatewayConfigRoutesEverythingToTheBackendWithTheModelAsked() {
        String platform = BenchContext.gatewayYaml(9000, "platform:200", 9001);
        assertThat(platform).contains("port: 9000", "threads: platform\n", "platform-threads: 200",
                "uri: http://127.0.0.1:9001", "Path=/**", "admin:\n  port: 0");
        assertThat(BenchContext.gatewayYaml(9000, "virtual", 9001)).contains("threads: virtual\n")
                .doesNotContain("platform-threads");
    }

    @Test
    void durationsAreWrittenAsTheLoadCommandReadsThem() {
        assertThat(BenchContext.seconds(Duration.ofSeconds(8))).isEqualTo("8s");
        assertThat(BenchContext.seconds(Duration.ofMillis(1500))).isEqualTo("1500ms");
    }

    private static List<String> fieldNames(JsonNode node) {
        List<String> names = new java.util.ArrayList<>();
        node.fieldNames().forEachRemaining(names::add);
        return names;
    }
}
