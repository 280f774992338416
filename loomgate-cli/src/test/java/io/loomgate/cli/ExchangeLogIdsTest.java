package io.loomgate.cli;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import co.elastic.logging.logback.EcsEncoder;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.loomgate.Loomgate;
import io.loomgate.filter.FilterFactory;
import io.loomgate.filter.GatewayFilter;
import io.loomgate.server.Transport;
import io.loomgate.testkit.ExternalTool;
import io.loomgate.testkit.RunningGateway;
import io.loomgate.testkit.TestOrigin;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/**
 * The exchange's ECS ids in a line a plugin's filter logs while the exchange is handled, through the embedding API
 * with Logback as the binding (as in the gateway's jar): the text pattern of {@link DefaultLogging} and the ECS
 * encoder of {@code logging.format: json} both write the {@code trace.id} of the traceparent the origin received and
 * the gateway's own {@code span.id}, and the filter's {@code MDC.get} answers the same two. Over h2c (curl, each
 * request a stream on a thread of its own) and over HTTP/1.1 keep-alive (the JDK client: the connection's thread
 * serves both requests, and each line carries its own request's ids; a line logged between them carries none).
 */
class ExchangeLogIdsTest {
    private static final String YAML = """
            server:
              address: 127.0.0.1
              port: 0
              transport: %s
              http2:
                enabled: true
            admin:
              port: 0
            routes:
              - id: main
                uri: %s
                predicates: [ "Path=/**" ]
                filters: [ "LogIds" ]
            """;

    /** What the filter saw: the MDC's two keys, read with MDC.get, beside the line it logged. */
    record Seen(String target, String traceId, String spanId) {
    }

    /** A line the plugin's logger wrote, as the text pattern and the ECS encoder write it. */
    record Line(String message, String text, JsonNode json) {
    }

    private final BlockingQueue<Seen> seen = new LinkedBlockingQueue<>();
    private final BlockingQueue<Line> lines = new LinkedBlockingQueue<>();
    private final LoggerContext ctx = (LoggerContext) LoggerFactory.getILoggerFactory();
    private final Logger plugin = ctx.getLogger("test.plugin.LogIds");
    private AppenderBase<ILoggingEvent> appender;

    @BeforeEach
    void captureThePluginsLines() {
        PatternLayoutEncoder text = new PatternLayoutEncoder();
        text.setContext(ctx);
        text.setPattern(DefaultLogging.PATTERN);
        text.start();
        EcsEncoder json = LogSettings.ecsEncoder(ctx);
        ObjectMapper mapper = new ObjectMapper();
        appender = new AppenderBase<>() {
            @Override
            protected void append(ILoggingEvent e) {
                try {
                    lines.add(new Line(e.getFormattedMessage(), new String(text.encode(e), StandardCharsets.UTF_8),
                            mapper.readTree(json.encode(e))));
                } catch (Exception x) {
                    throw new IllegalStateException(x);
                }
            }
        };
        appender.setContext(ctx);
        appender.start();
        plugin.addAppender(appender);
        plugin.setAdditive(false);
        plugin.setLevel(Level.INFO);
    }

    @AfterEach
    void stopCapturing() {
        plugin.detachAppender(appender);
        plugin.setAdditive(true);
        plugin.setLevel(null);
    }

    private FilterFactory logIds() {
        return new FilterFactory() {
            @Override
            public String name() {
                return "LogIds";
            }

            @Override
            public List<String> argNames() {
                return List.of();
            }

            @Override
            public GatewayFilter create(Map<String, String> args) {
                return (exchange, chain) -> {
                    String target = exchange.request().target();
                    seen.add(new Seen(target, MDC.get("trace.id"), MDC.get("span.id")));
                    LoggerFactory.getLogger("test.plugin.LogIds").warn("plugin saw {}", target);
                    chain.proceed(exchange);
                };
            }
        };
    }

    private Loomgate start(TestOrigin origin, Path dir) throws Exception {
        Path config = dir.resolve("gateway.yaml");
        // The transport the build asks for (the embedding builder has no override; the file's key, which refuses
        // epoll where it cannot run, says it), else the default.
        Transport asked = RunningGateway.transportAsked();
        Files.writeString(config, YAML.formatted(asked == null ? "jdk" : asked.name().toLowerCase(Locale.ROOT),
                origin.uri()));
        return Loomgate.builder().config(config).watchConfig(false).filter("LogIds", logIds()).start();
    }

    @Test
    void aPluginsLineInAnHttp2StreamCarriesTheExchangesIds(@TempDir Path dir) throws Exception {
        Path curl = ExternalTool.require("curl", "apt-get install curl");
        try (TestOrigin origin = new TestOrigin(); Loomgate gw = start(origin, dir)) {
            for (String target : List.of("/h2/1", "/h2/2")) {
                Process p = new ProcessBuilder(curl.toString(), "-sS", "-o", "/dev/null", "-w", "%{http_version}",
                        "--http2-prior-knowledge", "http://127.0.0.1:" + gw.port() + target)
                        .redirectErrorStream(true).start();
                String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
                assertThat(out).isEqualTo("2");
                assertCarriesItsIds(target, origin.takeRequest());
            }
        }
    }

    @Test
    void eachRequestOfAKeptAliveConnectionHasItsOwnIdsAndNoneBetween(@TempDir Path dir) throws Exception {
        try (TestOrigin origin = new TestOrigin(); Loomgate gw = start(origin, dir);
             HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()) {
            List<String> traces = new ArrayList<>();
            for (String target : List.of("/h1/1", "/h1/2")) {
                HttpResponse<String> r = client.send(HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + gw.port() + target)).build(),
                        HttpResponse.BodyHandlers.ofString());
                assertThat(r.statusCode()).isEqualTo(200);
                traces.add(assertCarriesItsIds(target, origin.takeRequest()));
            }
            assertThat(origin.connectionCount()).as("the gateway's pool kept one origin connection").isEqualTo(1);
            assertThat(traces.get(0)).isNotEqualTo(traces.get(1));
        }
        // A line outside any exchange (this thread's) has neither id, in either layout, nor does MDC.get answer them.
        plugin.warn("outside");
        Line outside = lines.poll(10, TimeUnit.SECONDS);
        assertThat(outside.text()).doesNotContain("trace.id").doesNotContain("span.id");
        assertThat(outside.json().has("trace.id")).isFalse();
        assertThat(MDC.get("trace.id")).isNull();
    }

    /** The exchange's line and MDC reads against the traceparent the origin got; returns the trace id. */
    private String assertCarriesItsIds(String target, TestOrigin.Recorded atOrigin) throws InterruptedException {
        String traceparent = atOrigin.header("traceparent");
        assertThat(traceparent).as("traceparent at the origin").matches("00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]");
        String trace = traceparent.substring(3, 35);
        Seen s = seen.poll(10, TimeUnit.SECONDS);
        Line line = lines.poll(10, TimeUnit.SECONDS);
        assertThat(s).as("the filter ran for " + target).isNotNull();
        assertThat(line).as("the filter's line for " + target).isNotNull();
        assertThat(s.target()).isEqualTo(target);
        assertThat(line.message()).isEqualTo("plugin saw " + target);
        assertThat(s.traceId()).as("MDC.get(trace.id) in the filter").isEqualTo(trace);
        assertThat(s.spanId()).as("MDC.get(span.id) in the filter").matches("[0-9a-f]{16}")
                .isNotEqualTo(traceparent.substring(36, 52)); // the gateway's span, not the attempt's it sent
        assertThat(line.text()).as("the text line").contains(" trace.id=" + trace + " span.id=" + s.spanId() + " - ");
        assertThat(line.json().path("trace.id").asText()).as("the JSON line").isEqualTo(trace);
        assertThat(line.json().path("span.id").asText()).isEqualTo(s.spanId());
        return trace;
    }
}
