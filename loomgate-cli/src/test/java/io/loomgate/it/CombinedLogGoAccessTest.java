package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.loomgate.observe.AccessLogFormat;
import io.loomgate.testkit.RawClient;
import io.loomgate.testkit.TestOrigin;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Issue 38 part 3: the {@code combined} access log is Apache's combined format exactly, so a real log analyser reads
 * it. Requests go through the gateway on real sockets, the lines it wrote are handed to GoAccess (Debian's package,
 * installed by .ci/run) with its own {@code COMBINED} format, and GoAccess must count every line as valid and see the
 * protocol, the referer and the user agent.
 */
class CombinedLogGoAccessTest {

    @Test
    void goAccessReadsEveryCombinedLine() throws Exception {
        RepoScript.require(RepoScript.onPath("goaccess"), "goaccess is not installed (apt-get install goaccess)");
        try (TestOrigin origin = new TestOrigin();
             ObservedGateway gw = new ObservedGateway(origin.port(), AccessLogFormat.COMBINED, "users", "/users")) {
            try (RawClient client = new RawClient(gw.port())) {
                for (int i = 0; i < 3; i++) {
                    client.send("GET /users/" + i + "?q=\"x\" HTTP/1.1\r\nHost: t\r\nReferer: https://ref.example/p"
                            + "\r\nUser-Agent: Mozilla/5.0 (X11; Linux x86_64) probe/" + i + "\r\n\r\n");
                    assertThat(client.read().status()).isEqualTo(200);
                }
                client.send("GET /nowhere HTTP/1.1\r\nHost: t\r\n\r\n"); // no route: 404, no agent, no referer
                assertThat(client.read().status()).isEqualTo(404);
            }
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (gw.accessLines.size() < 4 && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertThat(gw.accessLines).hasSize(4);
            assertThat(gw.accessLines.get(0)).matches("127\\.0\\.0\\.1 - - \\[\\d\\d/\\w{3}/\\d{4}:\\d\\d:\\d\\d:\\d\\d "
                    + "\\+0000] \"GET /users/0\\?q=\\\\x22x\\\\x22 HTTP/1\\.1\" 200 \\d+ \"https://ref\\.example/p\" "
                    + "\"Mozilla/5\\.0 \\(X11; Linux x86_64\\) probe/0\"");

            Path dir = Files.createTempDirectory("goaccess");
            Path log = dir.resolve("access.log");
            Files.write(log, gw.accessLines, StandardCharsets.UTF_8);
            Path report = dir.resolve("report.json");
            RepoScript run = RepoScript.run(Duration.ofSeconds(60), Map.of(), List.of("goaccess", log.toString(),
                    "--log-format=COMBINED", "--no-global-config", "-o", report.toString()));
            assertThat(run.exit()).as(run.output()).isZero();
            JsonNode general = new ObjectMapper().readTree(report.toFile()).get("general");
            assertThat(general.get("total_requests").asInt()).as(run.output()).isEqualTo(4);
            assertThat(general.get("valid_requests").asInt()).isEqualTo(4);
            assertThat(general.get("failed_requests").asInt()).isZero();
            String json = Files.readString(report);
            assertThat(json).contains("ref.example").contains("HTTP/1.1").contains("nowhere"); // GoAccess writes / as \\/
        }
    }
}
