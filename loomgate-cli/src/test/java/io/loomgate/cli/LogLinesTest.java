package io.loomgate.cli;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.LoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.encoder.Encoder;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.loomgate.testkit.EcsSchema;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The application log's two encoders, as the gateway jar configures them: {@link DefaultLogging}'s text pattern
 * (ISO-8601 time with its offset, the exchange's trace and span when the MDC has them) and {@code logging.format:
 * json}'s ECS encoder (read back by Jackson and by Python's jsonschema against the schema the access log's json
 * also meets).
 */
class LogLinesTest {
    private static final Map<String, String> TRACED = Map.of("trace.id", "4bf92f3577b34da6a3ce929d0e0e4736",
            "span.id", "00f067aa0ba902b7");
    private static final long AT = 1_795_000_000_123L; // 2026-11-18T11:06:40.123Z

    @Test
    void theTextLineStartsWithAnIsoTimeAndNamesTheTraceWhileAnExchangeIsHandled() throws Exception {
        LoggerContext ctx = new LoggerContext();
        new DefaultLogging().configure(ctx);
        Encoder<ILoggingEvent> text = ((ConsoleAppender<ILoggingEvent>) ctx.getLogger(Logger.ROOT_LOGGER_NAME)
                .getAppender("STDERR")).getEncoder();

        String traced = line(text, event(ctx, TRACED));
        String time = traced.substring(0, traced.indexOf(' '));
        assertThat(OffsetDateTime.parse(time).toInstant()).isEqualTo(Instant.ofEpochMilli(AT));
        assertThat(traced.substring(time.length())).isEqualTo(" WARN  [conn-7] Retries trace.id="
                + "4bf92f3577b34da6a3ce929d0e0e4736 span.id=00f067aa0ba902b7 - GET /x (route 'r'): retrying\n");
        String plain = line(text, event(ctx, Map.of()));
        assertThat(plain.substring(plain.indexOf(' '))).isEqualTo(" WARN  [conn-7] Retries - GET /x (route 'r'): "
                + "retrying\n");
        ctx.stop();
    }

    @Test
    void theJsonLineIsAnEcsDocumentWithTheTraceAndSpan() throws Exception {
        LoggerContext ctx = new LoggerContext();
        Encoder<ILoggingEvent> ecs = LogSettings.ecsEncoder(ctx);

        String traced = line(ecs, event(ctx, TRACED)).strip();
        JsonNode n = new ObjectMapper().readTree(traced);
        assertThat(n.get("@timestamp").asText()).isEqualTo("2026-11-18T11:06:40.123Z");
        assertThat(n.get("log.level").asText()).isEqualTo("WARN");
        assertThat(n.get("message").asText()).isEqualTo("GET /x (route 'r'): retrying");
        assertThat(n.get("log.logger").asText()).isEqualTo("io.loomgate.proxy.Retries");
        assertThat(n.get("process.thread.name").asText()).isEqualTo("conn-7");
        assertThat(n.get("service.name").asText()).isEqualTo("loomgate");
        assertThat(n.get("event.dataset").asText()).isEqualTo("loomgate.app");
        assertThat(n.get("ecs.version").asText()).isEqualTo("1.2.0");
        assertThat(n.get("trace.id").asText()).isEqualTo("4bf92f3577b34da6a3ce929d0e0e4736");
        assertThat(n.get("span.id").asText()).isEqualTo("00f067aa0ba902b7");

        LoggingEvent failed = event(ctx, Map.of());
        failed.setThrowableProxy(new ch.qos.logback.classic.spi.ThrowableProxy(
                new IllegalStateException("broken")));
        JsonNode error = new ObjectMapper().readTree(line(ecs, failed));
        assertThat(error.get("error.type").asText()).isEqualTo("java.lang.IllegalStateException");
        assertThat(error.get("error.message").asText()).isEqualTo("broken");
        assertThat(error.has("trace.id")).isFalse();

        EcsSchema.assertValid(List.of(traced, line(ecs, failed).strip()));
        ctx.stop();
    }

    private static LoggingEvent event(LoggerContext ctx, Map<String, String> mdc) {
        LoggingEvent e = new LoggingEvent(Logger.class.getName(), ctx.getLogger("io.loomgate.proxy.Retries"),
                Level.WARN, "{}: retrying", null, new Object[] {"GET /x (route 'r')"});
        e.setTimeStamp(AT);
        e.setThreadName("conn-7");
        e.setMDCPropertyMap(mdc);
        return e;
    }

    private static String line(Encoder<ILoggingEvent> encoder, ILoggingEvent e) {
        return new String(encoder.encode(e), StandardCharsets.UTF_8);
    }
}
