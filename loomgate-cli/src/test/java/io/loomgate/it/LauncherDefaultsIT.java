package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.JarProcess;
import io.loomgate.testkit.TestOrigin;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ./loomgate serve} runs the packaged gateway with the memory defaults docs/deployment.md states ("Sizing a
 * pod"), and {@code LOOMGATE_JAVA_OPTS} overrides them: the flags the running JVM reports ({@code jcmd VM.flags}),
 * not the command line, so a flag the JVM ignored or a launcher that drops one fails here. Not timed.
 */
class LauncherDefaultsIT {
    private static final long MIB = 1024 * 1024;

    @Test
    void serveRunsWithTheDocumentedMemoryDefaults(@TempDir Path dir) throws Exception {
        String flags = flagsOfServe(dir, Map.of("LOOMGATE_JAVA_OPTS", ""));
        assertThat(flags).contains("-XX:+UseSerialGC", "-XX:+ExitOnOutOfMemoryError", "-XX:+UseCompactObjectHeaders",
                "-XX:MaxHeapSize=" + 176 * MIB, "-XX:InitialHeapSize=" + 40 * MIB,
                "-XX:NewSize=" + 24 * MIB, "-XX:MaxNewSize=" + 24 * MIB, "-XX:SurvivorRatio=2",
                "-XX:TargetSurvivorRatio=90",
                "-XX:ReservedCodeCacheSize=" + 64 * MIB, "-XX:MaxMetaspaceSize=" + 128 * MIB,
                "-XX:FlightRecorderOptions=memorysize=2m", "-XX:TrimNativeHeapInterval=1000",
                "-XX:UserThreadWaitAttemptsAtExit=0")
                .doesNotContain("UseG1GC", "UseParallelGC");
    }

    @Test
    void javaOptionsReplaceTheDefaultsTheyName(@TempDir Path dir) throws Exception {
        String flags = flagsOfServe(dir, Map.of("LOOMGATE_JAVA_OPTS",
                "-XX:+UseParallelGC -Xmx224m -Xms48m -XX:ReservedCodeCacheSize=96m"));
        assertThat(flags).contains("-XX:+UseParallelGC", "-XX:MaxHeapSize=" + 224 * MIB,
                "-XX:InitialHeapSize=" + 48 * MIB, "-XX:ReservedCodeCacheSize=" + 96 * MIB,
                "-XX:+ExitOnOutOfMemoryError")
                .doesNotContain("UseSerialGC");
    }

    /** Starts {@code ./loomgate serve} with the environment, waits until it proxies, returns its JVM's flags. */
    private static String flagsOfServe(Path dir, Map<String, String> env) throws Exception {
        Path yaml = dir.resolve("gateway.yaml");
        try (TestOrigin origin = new TestOrigin()) {
            Files.writeString(yaml, """
                    routes:
                      - id: origin
                        uri: %s
                        predicates: [ "Path=/**" ]
                    """.formatted(origin.uri()));
            try (JarProcess gw = JarProcess.startLauncher(RepoRoot.find().resolve("loomgate"),
                    List.of("serve", "--config", yaml.toString(), "--port", "0", "--admin-port", "0", "--no-watch"),
                    env)) {
                int port = gw.awaitListening(Duration.ofSeconds(60));
                Process curl = new ProcessBuilder("curl", "-s", "-o", "/dev/null", "-w", "%{http_code}",
                        "--max-time", "20", "http://127.0.0.1:" + port + "/hello").redirectErrorStream(true).start();
                assertThat(new String(curl.getInputStream().readAllBytes(), StandardCharsets.UTF_8)).isEqualTo("200");
                return jcmd(gw.pid(), "VM.flags");
            }
        }
    }

    private static String jcmd(long pid, String command) throws Exception {
        Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
        Process p = new ProcessBuilder(jcmd.toString(), Long.toString(pid), command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("jcmd finished").isTrue();
        assertThat(p.exitValue()).as("jcmd %s %s:%n%s", pid, command, out).isZero();
        return out;
    }
}
