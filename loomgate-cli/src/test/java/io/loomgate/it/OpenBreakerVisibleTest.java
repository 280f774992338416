package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import io.loomgate.cli.ServedGateway;
import io.loomgate.config.ConfigLoader;
import io.loomgate.config.Plugins;
import io.loomgate.observe.AccessLog;
import io.loomgate.observe.ConfigReloads;
import io.loomgate.testkit.FreePorts;
import io.loomgate.testkit.TestOrigin;
import io.loomgate.testkit.TestOrigin.Reply;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * An open breaker's 503 says whose it is (session 57): the access log's {@code loomgate.failure} is
 * {@code circuit_open} and {@code loomgate_exchange_failures_total{kind="circuit_open"}} counts it, where before the
 * line had no failure kind and the metrics nothing (only {@code /routes} showed the state). The breaker's state is a
 * gauge, {@code loomgate_circuit_breaker_state{breaker}}, and {@code loomgate_config_generation} says which
 * configuration is served, one more for each applied reload.
 */
class OpenBreakerVisibleTest {
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @Test
    void anOpenBreakersAnswerHasAFailureKindAndItsStateAndTheGenerationAreMetrics(@TempDir Path dir)
            throws Exception {
        List<String> access = new CopyOnWriteArrayList<>();
        AppenderBase<ILoggingEvent> capture = new AppenderBase<>() {
            @Override
            protected void append(ILoggingEvent e) {
                access.addAll(List.of(e.getFormattedMessage().split("\n"))); // lines may come batched
            }
        };
        capture.start();
        Logger accessLogger = (Logger) LoggerFactory.getLogger(AccessLog.LOGGER);
        accessLogger.addAppender(capture);
        try (TestOrigin failing = new TestOrigin(); TestOrigin other = new TestOrigin()) {
            failing.fallback(r -> Reply.status(500));
            other.fallback(r -> Reply.ok("other"));
            Path file = dir.resolve("gateway.yaml");
            String routes = "routes:\n"
                    + "  - id: guarded\n    uri: " + failing.uri() + "\n    predicates: [ \"Path=/guarded/**\" ]\n"
                    + "    filters:\n      - name: CircuitBreaker\n        args: { name: guard, statusCodes: [ 500 ], "
                    + "sliding-window: 2, minimum-calls: 2, wait-in-open: %s }\n"
                    + "  - id: %s\n    uri: " + other.uri() + "\n    predicates: [ \"Path=/other/**\" ]\n";
            try (ServedGateway gw = FreePorts.start(admin -> {
                Files.writeString(file, head(admin) + routes.formatted("60s", "other"));
                return ServedGateway.start(ConfigLoader.load(file), Plugins.NONE, new ServedGateway.Reloading(file,
                        UnaryOperator.identity(), false, false, Duration.ofMillis(50)));
            })) {
                assertThat(metric(gw, "loomgate_circuit_breaker_state", "breaker=\"guard\"")).as("closed")
                        .isEqualTo(0);
                assertThat(metric(gw, "loomgate_config_generation", "")).isEqualTo(1);
                assertThat(get(gw, "/guarded/1").statusCode()).isEqualTo(500);
                assertThat(get(gw, "/guarded/2").statusCode()).isEqualTo(500);
                HttpResponse<String> open = get(gw, "/guarded/3");
                assertThat(open.statusCode()).isEqualTo(503);
                assertThat(open.headers().firstValue("Retry-After")).hasValue("60");
                assertThat(open.body()).contains("circuit breaker is open").doesNotContain("guard");

                assertThat(accessLine(access, "/guarded/3")).as("the open breaker's 503 in the access log")
                        .contains("\"loomgate.failure\":\"circuit_open\"");
                assertThat(accessLine(access, "/guarded/1")).doesNotContain("loomgate.failure");
                assertThat(metric(gw, "loomgate_exchange_failures_total",
                        "kind=\"circuit_open\",route=\"guarded\"")).isEqualTo(1);
                assertThat(metric(gw, "loomgate_circuit_breaker_state", "breaker=\"guard\"")).as("open")
                        .isEqualTo(2);

                reload(gw, file, routes.formatted("60s", "renamed"));
                assertThat(metric(gw, "loomgate_config_generation", "")).isEqualTo(2);
                assertThat(metric(gw, "loomgate_circuit_breaker_state", "breaker=\"guard\"")).as("kept open")
                        .isEqualTo(2);
                reload(gw, file, routes.formatted("30s", "renamed"));
                assertThat(metric(gw, "loomgate_config_generation", "")).isEqualTo(3);
                assertThat(metric(gw, "loomgate_circuit_breaker_state", "breaker=\"guard\""))
                        .as("a breaker with other settings starts closed").isEqualTo(0);
            }
        } finally {
            accessLogger.detachAppender(capture);
        }
    }

    /** The access line of {@code path}, polled with a deadline: the line is written after the answer is sent. */
    private static String accessLine(List<String> access, String path) throws InterruptedException {
        long end = System.nanoTime() + 10_000_000_000L;
        while (System.nanoTime() < end) {
            for (String line : access) {
                if (line.contains("\"" + path + "\"")) {
                    return line;
                }
            }
            Thread.sleep(10);
        }
        throw new AssertionError("no access-log line for " + path + " in " + access);
    }

    private static double metric(ServedGateway gw, String name, String labels) throws Exception {
        String text = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + gw.adminPort() + "/metrics"))
                .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString()).body();
        Matcher m = Pattern.compile("^" + name + "(?:\\{([^}]*)})? (\\S+)$", Pattern.MULTILINE).matcher(text);
        while (m.find()) {
            if (m.group(1) == null ? labels.isEmpty() : m.group(1).contains(labels)) {
                return Double.parseDouble(m.group(2));
            }
        }
        throw new AssertionError("no " + name + "{" + labels + "} in /metrics");
    }

    private static void reload(ServedGateway gw, Path file, String routes) throws Exception {
        Files.writeString(file, head(gw.adminPort()) + routes);
        ConfigReloads.Result r = gw.reload();
        assertThat(r.outcome()).as(r.message()).isEqualTo("applied");
    }

    private static String head(int adminPort) {
        return "server:\n  address: 127.0.0.1\n  port: 0\nadmin:\n  address: 127.0.0.1\n  port: " + adminPort
                + "\naccess-log:\n  enabled: true\n  format: json\n";
    }

    private static HttpResponse<String> get(ServedGateway gw, String path) throws Exception {
        HttpRequest get = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + gw.port() + path))
                .timeout(Duration.ofSeconds(10)).build();
        return HTTP.send(get, HttpResponse.BodyHandlers.ofString());
    }
}
