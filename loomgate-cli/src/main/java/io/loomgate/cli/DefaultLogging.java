package io.loomgate.cli;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.Configurator;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.util.ContextInitializer;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.spi.ContextAwareBase;

/**
 * The gateway's default Logback configuration, built in code (Logback finds it with the {@link java.util.ServiceLoader}
 * before its own configurators): an XML file parsed by Joran at start-up was a fifth of the main thread's work before
 * the first answered request. What it sets up:
 * <ul>
 * <li>the application log on stderr (appender {@value #APP_APPENDER}, on the root logger at WARN): ISO-8601 time with
 * its offset, level, thread, logger, the exchange's trace and span while one is handled (the MDC's {@code trace.id}
 * and {@code span.id}, which {@code logging.format: json} writes as ECS fields), message; {@code io.loomgate} at
 * {@code LOOMGATE_LOG_LEVEL} (a system property or environment variable; {@code debug} shows every refused request
 * and upstream retry), INFO when unset;</li>
 * <li>the access log ({@code access-log.enabled}) on stdout, one line per request, nothing added (logger
 * {@code loomgate.access}, not additive);</li>
 * <li>{@code loomgate.unexpected} at ERROR: exceptions no code expected (a handler that threw: the client got a 500),
 * always logged, a bug each time.</li>
 * </ul>
 * An operator's own configuration wins, as with any Logback application: {@code -Dlogback.configurationFile}, or a
 * {@code logback-test.xml} / {@code logback.xml} on the class path (an embedding application's), is left to Logback's
 * own configurators. The config file's {@code logging:} section is applied on top ({@link LogSettings}).
 */
public final class DefaultLogging extends ContextAwareBase implements Configurator {
    /** The application log's appender, which {@link LogSettings} switches to JSON. */
    static final String APP_APPENDER = "STDERR";
    static final String ACCESS_APPENDER = "ACCESS";
    static final String PATTERN = "%d{yyyy-MM-dd'T'HH:mm:ss.SSSXXX} %-5level [%thread] %logger{0}"
            + "%replace( trace.id=%X{trace.id} span.id=%X{span.id}){'^ trace.id= span.id=$', ''} - %msg%n";
    static final String LEVEL_VARIABLE = "LOOMGATE_LOG_LEVEL";

    /** For the {@link java.util.ServiceLoader}. */
    public DefaultLogging() {
    }

    @Override
    public ExecutionStatus configure(LoggerContext ctx) {
        if (operatorConfigured()) {
            return ExecutionStatus.INVOKE_NEXT_IF_ANY;
        }
        Logger root = ctx.getLogger(Logger.ROOT_LOGGER_NAME);
        root.setLevel(Level.WARN);
        root.addAppender(console(ctx, APP_APPENDER, "System.err", PATTERN));

        Logger access = ctx.getLogger("loomgate.access");
        access.setLevel(Level.INFO);
        access.setAdditive(false);
        access.addAppender(console(ctx, ACCESS_APPENDER, "System.out", "%msg%n"));

        setLevel(ctx.getLogger("io.loomgate"), levelSetting(System.getProperty(LEVEL_VARIABLE),
                System.getenv(LEVEL_VARIABLE)));
        ctx.getLogger("loomgate.unexpected").setLevel(Level.ERROR);
        return ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY;
    }

    /** A configuration file named by the system property, or one on the class path, as Logback itself looks for. */
    private static boolean operatorConfigured() {
        if (System.getProperty(ContextInitializer.CONFIG_FILE_PROPERTY) != null) {
            return true;
        }
        ClassLoader loader = DefaultLogging.class.getClassLoader();
        return loader.getResource(ContextInitializer.TEST_AUTOCONFIG_FILE) != null
                || loader.getResource(ContextInitializer.AUTOCONFIG_FILE) != null;
    }

    /**
     * {@code ${LOOMGATE_LOG_LEVEL:-INFO}} as Logback's XML configuration read it: the system property first, then the
     * environment variable, INFO when neither is set.
     */
    static String levelSetting(String property, String environment) {
        return property != null ? property : environment != null ? environment : "INFO";
    }

    /**
     * A level as Logback's XML configuration sets it: blank leaves the logger as it is, {@code inherited} or
     * {@code null} makes it inherit, a name not a level is DEBUG ({@link Level#toLevel(String)}).
     */
    static void setLevel(Logger logger, String value) {
        if (value.isBlank()) {
            return;
        }
        String v = value.trim();
        logger.setLevel(v.equalsIgnoreCase("inherited") || v.equalsIgnoreCase("null") ? null : Level.toLevel(v));
    }

    private static ConsoleAppender<ILoggingEvent> console(LoggerContext ctx, String name, String target,
                                                          String pattern) {
        ConsoleAppender<ILoggingEvent> appender = new ConsoleAppender<>();
        appender.setContext(ctx);
        appender.setName(name);
        appender.setTarget(target);
        PatternLayoutEncoder encoder = new PatternLayoutEncoder();
        encoder.setContext(ctx);
        encoder.setParent(appender);
        encoder.setPattern(pattern);
        encoder.start();
        appender.setEncoder(encoder);
        appender.start();
        return appender;
    }
}
