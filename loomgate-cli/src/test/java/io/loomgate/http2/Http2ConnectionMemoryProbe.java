package io.loomgate.http2;

import io.loomgate.testkit.JarProcess;
import io.loomgate.testkit.TestOrigin;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;

/**
 * A measurement, not a test (it asserts nothing, so it runs only when asked): prints the packaged gateway's heap per
 * idle h2c connection and per connection with one open stream, read with jcmd after full GCs. Run it with
 * {@code ./mvnw -pl loomgate-cli -am test -Dtest=Http2ConnectionMemoryProbe -Dloomgate.measure=true
 * -Dsurefire.failIfNoSpecifiedTests=false} after {@code ./loomgate build}.
 */
@EnabledIfSystemProperty(named = "loomgate.measure", matches = "true")
class Http2ConnectionMemoryProbe {
    static long heapUsed(long pid) throws Exception {
        String jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd").toString();
        for (int i = 0; i < 3; i++) {
            new ProcessBuilder(jcmd, Long.toString(pid), "GC.run").start().waitFor();
        }
        Process p = new ProcessBuilder(jcmd, Long.toString(pid), "GC.heap_info").redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        p.waitFor();
        Matcher m = Pattern.compile("used (\\d+)K").matcher(out);
        if (!m.find()) {
            throw new AssertionError(out);
        }
        return Long.parseLong(m.group(1)) * 1024;
    }

    @Test
    void measure(@TempDir Path dir) throws Exception {
        int n = 2000;
        Path yaml = dir.resolve("gw.yaml");
        Files.writeString(yaml, H2cGatewayYaml.yaml() + "access-log:\n  enabled: false\n");
        try (TestOrigin origin = new TestOrigin();
             JarProcess gw = JarProcess.start(List.of("-Xmx256m", "-XX:+UseG1GC"),
                     List.of("serve", "--config", yaml.toString()), Map.of("ORIGIN", origin.uri()))) {
            int port = gw.awaitListening(Duration.ofSeconds(30));
            for (int i = 0; i < 50; i++) {
                try (RawH2Client c = new RawH2Client(port)) {
                    c.get(1, "/warm");
                    c.body(1);
                }
            }
            List<RawH2Client> filler = new ArrayList<>();
            for (int i = 0; i < 1500; i++) { // fills the buffer pool (1024 x 8 KiB) so it does not move below
                filler.add(new RawH2Client(port));
            }
            for (RawH2Client c : filler) {
                c.await(f -> f.type() == Frames.SETTINGS);
            }
            Thread.sleep(1000);
            long m0 = heapUsed(gw.pid());
            List<RawH2Client> conns = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                conns.add(new RawH2Client(port));
            }
            for (RawH2Client c : conns) {
                c.await(f -> f.type() == Frames.SETTINGS);
            }
            Thread.sleep(1000);
            long m1 = heapUsed(gw.pid());
            for (RawH2Client c : conns) {
                c.headers(1, RawH2Client.request("POST", "/idle"), false);
            }
            long deadline = System.nanoTime() + 60_000_000_000L;
            while (origin.connectionCount() < n && System.nanoTime() < deadline) {
                Thread.sleep(100);
            }
            Thread.sleep(2000);
            long m2 = heapUsed(gw.pid());
            long pool = 1024L * 8192;
            System.out.printf("MEASURE connections=%d origin connections=%d%n", n, origin.connectionCount());
            System.out.printf("MEASURE heap per idle h2c connection, no stream: %d bytes%n", (m1 - m0) / n);
            System.out.printf("MEASURE heap per h2c connection with one open stream waiting on its origin (upstream"
                    + " HTTP/1.1 connection and its two 8 KiB buffers included; pool drain added back): %d bytes%n",
                    (m2 - m0 + pool) / n);
            System.out.printf("MEASURE raw m0=%d m1=%d m2=%d%n", m0, m1, m2);
            for (RawH2Client c : filler) {
                c.close();
            }
            for (RawH2Client c : conns) {
                c.close();
            }
        }
    }
}
