package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.TestOrigin;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Start-up work a plain gateway does not need stays out of its start, checked by what it does, not by timing it (the
 * time is measured by bench/startup): {@code serve} of a plain-HTTP config with one route, run as a process on this
 * class path with the JVM's class-loading log, answers through its route without having loaded the platform MBean
 * server (a seventh of the start's CPU once: every platform MBean registered, the diagnostic commands' help parsed),
 * the other commands (picocli builds a model of every command it is given), Conscrypt or OpenTelemetry.
 */
class StartupClassesTest {
    private static final Pattern LISTENING = Pattern.compile("listening on [^ ]+:(\\d+)");

    @Test
    void aPlainConfigAnswersWithoutTheClassesItDoesNotNeed(@TempDir Path dir) throws Exception {
        try (TestOrigin origin = new TestOrigin()) {
            origin.enqueue(TestOrigin.Reply.ok("hello from origin"));
            Path yaml = dir.resolve("gateway.yaml");
            Files.writeString(yaml, """
                    server: { address: 127.0.0.1, port: 0 }
                    admin: { port: 0 }
                    routes:
                      - { id: origin, uri: "%s", predicates: [ "Path=/**" ] }
                    """.formatted(origin.uri()));
            Path classes = dir.resolve("classes.log");
            Path out = dir.resolve("gateway.log");
            Process gw = new ProcessBuilder(javaBinary(), "-Xlog:class+load=info:file=" + classes,
                    "-cp", System.getProperty("java.class.path"), "io.loomgate.cli.Main",
                    "serve", "--config", yaml.toString(), "--no-watch")
                    .redirectErrorStream(true).redirectOutput(out.toFile()).start();
            try {
                int port = awaitListening(gw, out, Duration.ofSeconds(90));
                HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + port + "/hello")).timeout(Duration.ofSeconds(30)).build(),
                        HttpResponse.BodyHandlers.ofString());
                assertThat(r.statusCode()).isEqualTo(200);
                assertThat(r.body()).isEqualTo("hello from origin");

                List<String> loaded = Files.readAllLines(classes);
                assertThat(loaded).as("the class-loading log").anyMatch(l -> l.contains(" io.loomgate.cli.ServeCommand "));
                assertThat(loaded).as("classes loaded by a plain gateway up to its first answer")
                        .noneMatch(l -> l.contains(" com.sun.jmx.mbeanserver.JmxMBeanServer "))
                        .noneMatch(l -> l.contains(" io.loomgate.cli.DemoCommand "))
                        .noneMatch(l -> l.contains(" io.loomgate.cli.ValidateCommand "))
                        .noneMatch(l -> l.contains(" org.conscrypt."))
                        .noneMatch(l -> l.contains(" io.opentelemetry."));
            } finally {
                gw.destroy();
                if (!gw.waitFor(60, TimeUnit.SECONDS)) {
                    gw.destroyForcibly();
                }
            }
        }
    }

    /** Polls the output for the "listening on host:port" line; the port, or a failure with the output so far. */
    private static int awaitListening(Process gw, Path out, Duration timeout) throws IOException,
            InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            String text = Files.exists(out) ? Files.readString(out) : "";
            Matcher m = LISTENING.matcher(text);
            if (m.find()) {
                return Integer.parseInt(m.group(1));
            }
            if (!gw.isAlive()) {
                throw new AssertionError("the gateway exited with " + gw.exitValue() + ":\n" + text);
            }
            Thread.sleep(20);
        }
        throw new AssertionError("no listening line within " + timeout + ":\n" + Files.readString(out));
    }

    private static String javaBinary() {
        return ProcessHandle.current().info().command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    }
}
