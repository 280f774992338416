package io.loomgate.cli;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.JsonEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import io.loomgate.config.GatewayConfig;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies the config's {@code logging:} section to Logback: the application log (appender {@code STDERR} of
 * logback.xml) switched to Logback's own {@link JsonEncoder} for {@code format: json}, one JSON object per line, and
 * the level of each named logger. The access log keeps its own appender and {@code access-log.format}.
 */
final class LogSettings {
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
                && ctx.getLogger(Logger.ROOT_LOGGER_NAME).getAppender("STDERR")
                instanceof ConsoleAppender<ILoggingEvent> console) {
            useJson(ctx, console);
        }
    }

    /**
     * A live reload's change of levels: loggers the new section no longer names go back to inheriting their level
     * (as logback.xml left them), the others take their new level. The format is not live ({@link NonLiveChanges}).
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

    private static void useJson(LoggerContext ctx, ConsoleAppender<ILoggingEvent> console) {
        JsonEncoder json = new JsonEncoder();
        json.setContext(ctx);
        json.setWithSequenceNumber(false);
        json.setWithNanoseconds(false);
        json.setWithContext(false);
        json.setWithArguments(false);
        json.setWithMessage(false); // the formatted message is the one a reader wants; the template is noise
        json.setWithFormattedMessage(true);
        json.start();
        console.stop();
        console.setEncoder(json);
        console.start();
    }
}
