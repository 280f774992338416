package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.ExternalTool;
import io.loomgate.testkit.RunningGateway;
import io.loomgate.testkit.TestOrigin;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The whole h2spec conformance suite (RFC 9113 and RFC 7541: every test, generic, http2 and hpack) against the
 * gateway's h2c listener, proxying to an HTTP/1.1 origin. Every test must pass.
 */
class H2specTest {

    @Test
    void everyH2specTestPassesAgainstTheH2cListener() throws Exception {
        Path h2spec = ExternalTool.require("h2spec", "go install github.com/summerwind/h2spec/cmd/h2spec@latest");
        try (TestOrigin origin = new TestOrigin();
             RunningGateway gw = RunningGateway.start("""
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
                     """, Map.of("ORIGIN", origin.uri()))) {
            Process p = new ProcessBuilder(List.of(h2spec.toString(), "-h", "127.0.0.1", "-p",
                    Integer.toString(gw.port()), "-o", "5", "-j", Path.of("target", "h2spec-h2c.xml").toString()))
                    .redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(p.waitFor(300, TimeUnit.SECONDS)).isTrue();
            String summary = out.lines().filter(l -> l.matches(".*\\d+ tests, \\d+ passed.*")).findFirst()
                    .orElse("no summary");
            assertThat(summary).as(out).contains(", 0 failed");
            assertThat(summary).as(out).contains(", 0 skipped");
            assertThat(p.exitValue()).as(out).isZero();
        }
    }
}
