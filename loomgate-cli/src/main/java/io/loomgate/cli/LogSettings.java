package io.loomgate.cli;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import co.elastic.logging.logback.EcsEncoder;
import io.loomgate.config.GatewayConfig;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies the config's {@code logging:} section to Logback: the application log (appender {@code STDERR} of
 * {@link DefaultLogging}) switched to Elastic's {@link EcsEncoder} for {@code format: json}, one Elastic Common
 * Schema document per line (the schema of the access log's {@code json} format, so one pipeline reads both), and the
 * level of each named logger. The access log keeps its own appender and {@code access-log.format}.
 */
final class LogSettings {
    /** {@code service.name} and {@code event.dataset}: the access log's lines say {@code loomgate.access}. */
    static final String SERVICE = "loomgate";
    static final String DATASET = "loomgate.app";

    private LogSettings() {
    }

    /** Applies the section; does nothing when Logback is not the SLF4J binding (e.g. an embedding application's). */
    static void apply(GatewayConfig.LoggingSpec spec) {
        if (!(LoggerFactory.getILoggerFactory() instanceof LoggerContext ctx)) {
            return;
        }
        for (Map.Entry<String, String> e : spec.levels().entrySet()) {
            String name = e.getKey().equalsIgnoreCase("root") ? Logger.ROOT_LOGGER_NAME : e.getKey();
            ctx.getLogger(name).setLevel(Level.toLevel(e.getValue()));
        }
        if (spec.format().equals("json")
                && ctx.getLogger(Logger.ROOT_LOGGER_NAME).getAppender(DefaultLogging.APP_APPENDER)
                instanceof ConsoleAppender<ILoggingEvent> console) {
            useJson(ctx, console);
        }
    }

    /**
     * A live reload's change of levels: loggers the new section no longer names go back to inheriting their level
     * (as {@link DefaultLogging} left them), the others take their new level. The format is not live
     * ({@link NonLiveChanges}).
     */
    static void change(GatewayConfig.LoggingSpec before, GatewayConfig.LoggingSpec after) {
        if (!(LoggerFactory.getILoggerFactory() instanceof LoggerContext ctx)) {
            return;
        }
        for (String name : before.levels().keySet()) {
            if (!after.levels().containsKey(name) && !name.equalsIgnoreCase("root")) {
                ctx.getLogger(name).setLevel(null);
            }
        }
        apply(new GatewayConfig.LoggingSpec("text", after.levels()));
    }

    /**
     * The ECS encoder: MDC entries become fields, so the proxy's {@code trace.id} and {@code span.id} are there while
     * an exchange is handled; no caller origin (a stack walk per line), exceptions as {@code error.*}.
     */
    static EcsEncoder ecsEncoder(LoggerContext ctx) {
        EcsEncoder json = new EcsEncoder();
        json.setContext(ctx);
        json.setServiceName(SERVICE);
        json.setEventDataset(DATASET);
        json.setIncludeOrigin(false);
        json.setIncludeMarkers(false);
        json.start();
        return json;
    }

    private static void useJson(LoggerContext ctx, ConsoleAppender<ILoggingEvent> console) {
        EcsEncoder json = ecsEncoder(ctx);
        console.stop();
        console.setEncoder(json);
        console.start();
    }
}
