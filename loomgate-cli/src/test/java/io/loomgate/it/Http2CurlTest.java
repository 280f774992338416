package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.ExternalTool;
import io.loomgate.testkit.RunningGateway;
import io.loomgate.testkit.TestOrigin;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * curl with {@code --http2-prior-knowledge} through the gateway's h2c listener to an HTTP/1.1 origin. Debian's curl 7.88.1
 * cannot reuse a prior-knowledge connection for a second transfer (curl issue 10634, fixed in 8.0), so the
 * multiplexing tests use nghttp2's clients instead ({@link Http2MultiplexingTest}).
 */
class Http2CurlTest {
    static final String H2C = """
            server:
              address: 127.0.0.1
              port: 0
              http2:
                enabled: true
            admin:
              port: 0
            routes:
              - id: main
                uri: ${ORIGIN}
                predicates: [ "Path=/**" ]
                filters: [ "AddResponseHeader=X-Route, main" ]
            """;

    private static List<String> curl(List<String> args) throws Exception {
        Path curl = ExternalTool.require("curl", "apt-get install curl");
        List<String> cmd = new ArrayList<>(List.of(curl.toString(), "-sS", "--http2-prior-knowledge"));
        cmd.addAll(args);
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(out).isZero();
        return out.lines().toList();
    }

    @Test
    void aRequestOverH2cIsProxiedWithItsRouteFilters() throws Exception {
        try (TestOrigin origin = new TestOrigin();
             RunningGateway gw = RunningGateway.start(H2C, Map.of("ORIGIN", origin.uri()))) {
            List<String> out = curl(List.of("-i", "-H", "Cookie: a=1", "-H", "Cookie: b=2", gw.url("/a?b=1")));
            assertThat(out.get(0)).isEqualTo("HTTP/2 200 ");
            assertThat(out).contains("x-route: main", "hello from origin");
            TestOrigin.Recorded seen = origin.takeRequest();
            assertThat(seen.target()).isEqualTo("/a?b=1");
            assertThat(seen.version()).isEqualTo("HTTP/1.1");
            assertThat(seen.header("Host")).isEqualTo("127.0.0.1:" + gw.port());
            assertThat(seen.header("Cookie")).isEqualTo("a=1; b=2");
        }
    }

    @Test
    void anUploadReachesTheOriginWhole(@TempDir Path dir) throws Exception {
        try (TestOrigin origin = new TestOrigin();
             RunningGateway gw = RunningGateway.start(H2C, Map.of("ORIGIN", origin.uri()))) {
            byte[] body = new byte[3 << 20];
            new java.util.Random(7).nextBytes(body);
            Path file = dir.resolve("up.bin");
            Files.write(file, body);
            List<String> out = curl(List.of("-w", "%{http_version} %{response_code}\\n", "-o", "/dev/null",
                    "--data-binary", "@" + file, gw.url("/up")));
            assertThat(out).containsExactly("2 200");
            TestOrigin.Recorded seen = origin.takeRequest();
            assertThat(seen.method()).isEqualTo("POST");
            assertThat(seen.body()).isEqualTo(body);
        }
    }

    /**
     * Issue 35 items 7 and 8, as curl sees them: a :path with a byte HTTP/1.1's request line refuses (HTAB, SP, sent
     * raw with --request-target) resets the stream with PROTOCOL_ERROR, which curl reports as such (exit 92), and
     * nothing reaches the origin. Before, HTAB was proxied (200) and SP answered 500 with the exception's text.
     */
    @Test
    void aPathWithARefusedByteIsAStreamErrorCurlReports() throws Exception {
        Path curl = ExternalTool.require("curl", "apt-get install curl");
        try (TestOrigin origin = new TestOrigin();
             RunningGateway gw = RunningGateway.start(H2C, Map.of("ORIGIN", origin.uri()))) {
            for (String target : List.of("/a\tb", "/a b")) {
                Process p = new ProcessBuilder(curl.toString(), "-sS", "--http2-prior-knowledge", "--request-target",
                        target, gw.url("/")).redirectErrorStream(true).start();
                String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
                assertThat(p.exitValue()).as(out).isEqualTo(92); // CURLE_HTTP2_STREAM
                assertThat(out).contains("PROTOCOL_ERROR");
            }
            assertThat(origin.requestCount()).isZero();
        }
    }
}
