package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.ExternalTool;
import io.loomgate.testkit.RunningGateway;
import io.loomgate.testkit.TestOrigin;
import io.loomgate.testkit.TestOrigin.Reply;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** Many streams on one h2c connection, driven by nghttp2's own clients (h2load, nghttp). */
class Http2MultiplexingTest {

    private static String run(String tool, List<String> args) throws Exception {
        Path bin = ExternalTool.require(tool, "apt-get install nghttp2-client");
        List<String> cmd = new ArrayList<>(List.of(bin.toString()));
        cmd.addAll(args);
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(out).isZero();
        return out;
    }

    @Test
    void hundredConcurrentStreamsOnOneConnectionTakeAboutAsLongAsOne() throws Exception {
        try (TestOrigin origin = new TestOrigin();
             RunningGateway gw = RunningGateway.start(Http2CurlTest.H2C, Map.of("ORIGIN", origin.uri()))) {
            origin.fallback(r -> Reply.ok("slow").delayed(Duration.ofMillis(100)));
            String out = run("h2load", List.of("-n", "100", "-c", "1", "-m", "100", gw.url("/slow")));
            assertThat(out).contains("100 succeeded, 0 failed", "status codes: 100 2xx");
            Matcher m = Pattern.compile("finished in ([0-9.]+)(ms|s),").matcher(out);
            assertThat(m.find()).as(out).isTrue();
            double millis = Double.parseDouble(m.group(1)) * (m.group(2).equals("s") ? 1000 : 1);
            // One after another: 100 x 100 ms = 10 s. Side by side: about 100 ms (generous for a busy machine).
            assertThat(millis).as(out).isLessThan(5_000);
            assertThat(origin.requestCount()).isEqualTo(100);
        }
    }

    @Test
    void aLargeDownloadOnOneStreamDoesNotHoldUpTheOthers() throws Exception {
        try (TestOrigin origin = new TestOrigin();
             RunningGateway gw = RunningGateway.start(Http2CurlTest.H2C, Map.of("ORIGIN", origin.uri()))) {
            byte[] mib = new byte[1 << 20];
            int mibs = 512;
            origin.fallback(r -> r.target().equals("/big")
                    ? new Reply("HTTP/1.1 200 OK", List.of("Content-Length: " + ((long) mibs << 20)),
                    Collections.nCopies(mibs, mib), Duration.ZERO, Duration.ZERO, TestOrigin.Effect.NONE)
                    : Reply.ok("small").delayed(Duration.ofMillis(50)));
            List<String> args = new ArrayList<>(List.of("-ns", gw.url("/big")));
            for (int i = 0; i < 20; i++) {
                args.add(gw.url("/small" + i));
            }
            String out = run("nghttp", args);
            // Statistics lines: id responseEnd requestStart process code size path
            Pattern row = Pattern.compile("^\\s*\\d+\\s+\\+([0-9.]+)(ms|s|us)\\s+\\S+\\s+\\S+\\s+(\\d+)\\s+(\\S+)\\s+(\\S+)$");
            double bigEnd = -1;
            List<Double> smallEnds = new ArrayList<>();
            for (String line : out.lines().toList()) {
                Matcher m = row.matcher(line);
                if (!m.matches()) {
                    continue;
                }
                double end = Double.parseDouble(m.group(1)) * switch (m.group(2)) {
                    case "s" -> 1000.0;
                    case "us" -> 0.001;
                    default -> 1.0;
                };
                assertThat(m.group(3)).as(line).isEqualTo("200");
                if (m.group(5).equals("/big")) {
                    bigEnd = end;
                } else {
                    smallEnds.add(end);
                }
            }
            assertThat(smallEnds).as(out).hasSize(20);
            assertThat(bigEnd).as(out).isPositive();
            // Every small response completed while the big one was still streaming.
            double bigFinished = bigEnd;
            assertThat(smallEnds).as(out).allMatch(e -> e < bigFinished);
        }
    }
}
