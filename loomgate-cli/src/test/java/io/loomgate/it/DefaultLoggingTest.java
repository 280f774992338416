package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.ClassPathGateway;
import io.loomgate.testkit.TestOrigin;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The gateway's default logging (built in code, {@code io.loomgate.cli.DefaultLogging}) as a fresh process writes it:
 * the application log on stderr in the text pattern, {@code io.loomgate} at {@code LOOMGATE_LOG_LEVEL}, the access log
 * alone on stdout; and an operator's {@code -Dlogback.configurationFile} still replaces all of it.
 */
class DefaultLoggingTest {
    private static final Duration DEADLINE = Duration.ofSeconds(90); // generous: a loaded machine starts JVMs slowly
    /** {@code 2026-11-29T18:00:00.000+00:00 INFO  [main] ServedGateway - loomgate listening on ...}. */
    private static final String TEXT_LINE = "^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}(Z|[+-]\\d\\d:\\d\\d) "
            + "%-5s \\[[^\\]]+\\] %s - %s.*$";

    @Test
    void appLogOnStderrAtTheEnvironmentsLevelAccessLogAloneOnStdout(@TempDir Path dir) throws Exception {
        try (TestOrigin origin = new TestOrigin()) {
            origin.enqueue(TestOrigin.Reply.ok("hello"));
            Path yaml = config(dir, origin, "access-log: { enabled: true }");
            try (ClassPathGateway gw = ClassPathGateway.serve(dir, yaml, List.of(),
                    Map.of("LOOMGATE_LOG_LEVEL", "debug"))) {
                int port = gw.awaitListening(DEADLINE);
                assertThat(get(port, "/hello/x")).isEqualTo(200);
                assertThat(get(port, "/elsewhere")).isEqualTo(404);

                awaitOutput(gw, g -> g.stdout().lines().count() == 2 && g.stderr().contains("no route for GET"));
                assertThat(gw.stderr().lines()).as("stderr")
                        .anyMatch(l -> l.matches(TEXT_LINE.formatted("INFO", "ServedGateway", "loomgate listening on")))
                        .as("io.loomgate at LOOMGATE_LOG_LEVEL=debug")
                        .anyMatch(l -> l.matches(TEXT_LINE.formatted("DEBUG", "\\S+ trace\\.id=[0-9a-f]{32} span\\.id=[0-9a-f]{16}",
                                ".*no route for GET /elsewhere")))
                        .noneMatch(l -> l.contains("\"GET /hello/x HTTP/1.1\""));
                assertThat(gw.stdout().lines()).as("stdout: the access log's combined lines alone")
                        .hasSize(2)
                        .allMatch(l -> l.startsWith("127.0.0.1 - - ["))
                        .anyMatch(l -> l.contains("\"GET /hello/x HTTP/1.1\" 200 "))
                        .anyMatch(l -> l.contains("\"GET /elsewhere HTTP/1.1\" 404 "));
            }
        }
    }

    @Test
    void anOperatorsLogbackFileReplacesTheDefaults(@TempDir Path dir) throws Exception {
        try (TestOrigin origin = new TestOrigin()) {
            Path yaml = config(dir, origin, "");
            Path logback = dir.resolve("operator-logback.xml");
            Files.writeString(logback, """
                    <configuration>
                      <appender name="OUT" class="ch.qos.logback.core.ConsoleAppender">
                        <target>System.err</target>
                        <encoder><pattern>OPERATOR %level %logger{0}: %msg%n</pattern></encoder>
                      </appender>
                      <root level="INFO"><appender-ref ref="OUT"/></root>
                    </configuration>
                    """);
            try (ClassPathGateway gw = ClassPathGateway.serve(dir, yaml,
                    List.of("-Dlogback.configurationFile=" + logback), Map.of())) {
                gw.awaitListening(DEADLINE);
                assertThat(gw.stderr().lines()).anyMatch(l -> l.startsWith("OPERATOR INFO ServedGateway: loomgate "
                        + "listening on "));
            }
        }
    }

    private static Path config(Path dir, TestOrigin origin, String more) throws Exception {
        Path yaml = dir.resolve("gateway.yaml");
        Files.writeString(yaml, """
                server: { address: 127.0.0.1, port: 0 }
                admin: { port: 0 }
                %s
                routes:
                  - { id: origin, uri: "%s", predicates: [ "Path=/hello/**" ] }
                """.formatted(more, origin.uri()));
        return yaml;
    }

    private static int get(int port, String path) throws Exception {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(DEADLINE).build(), HttpResponse.BodyHandlers.discarding()).statusCode();
    }

    private interface OutputCheck {
        boolean test(ClassPathGateway gw) throws Exception;
    }

    /** Polls until the outputs pass {@code check}; fails with both outputs at the deadline. */
    private static void awaitOutput(ClassPathGateway gw, OutputCheck check) throws Exception {
        long deadline = System.nanoTime() + DEADLINE.toNanos();
        while (!check.test(gw)) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("stdout:\n" + gw.stdout() + "\nstderr:\n" + gw.stderr());
            }
            Thread.sleep(20);
        }
    }
}
