package io.loomgate.testkit;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.core.AppenderBase;
import io.loomgate.threads.Unexpected;
import java.lang.reflect.AnnotatedElement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.slf4j.LoggerFactory;

/**
 * Fails a test in which the gateway logged an unexpected exception: an event of the logger {@value Unexpected#NAME}
 * (a handler that threw and answered 500, a connection loop that failed, ...). Registered for every test class of
 * loomgate-core, and through its test jar of loomgate-cli, by JUnit's extension auto-detection
 * (junit-platform.properties and META-INF/services in this module's test resources), so no test can forget it. An appender on that logger collects the events from every thread; each test fails after it ran when
 * any arrived during it, and the class fails for those of its {@code @BeforeAll}/{@code @AfterAll} or of its last
 * requests' stragglers. A test that provokes one on purpose says so with {@link ProvokesUnexpectedException}.
 * A gateway run as a process is checked the same way by {@link #inOutput}, which the cli module's {@code JarProcess}
 * applies to its output.
 */
public final class UnexpectedExceptionCheck implements BeforeAllCallback, AfterEachCallback, AfterAllCallback {
    private static final Queue<String> EVENTS = new ConcurrentLinkedQueue<>();

    /** The appender, added once per JVM when the first test class starts. */
    private static final class Installed {
        static final boolean DONE = install();

        private static boolean install() {
            if (!(LoggerFactory.getILoggerFactory() instanceof LoggerContext ctx)) {
                throw new IllegalStateException("the unexpected-exception check needs Logback as the SLF4J binding");
            }
            AppenderBase<ILoggingEvent> appender = new AppenderBase<>() {
                @Override
                protected void append(ILoggingEvent e) {
                    if (e.getLevel().isGreaterOrEqual(Level.ERROR)) {
                        EVENTS.add(describe(e));
                    }
                }
            };
            appender.setContext(ctx);
            appender.setName("unexpected-exception-check");
            appender.start();
            ctx.getLogger(Unexpected.NAME).addAppender(appender);
            return true;
        }
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        if (!Installed.DONE) {
            throw new IllegalStateException("not installed");
        }
    }

    @Override
    public void afterEach(ExtensionContext context) {
        check(context, "test");
    }

    @Override
    public void afterAll(ExtensionContext context) {
        check(context, "test class (its @BeforeAll/@AfterAll, or requests still ending after its tests)");
    }

    private static void check(ExtensionContext context, String what) {
        List<String> seen = new ArrayList<>();
        for (String e = EVENTS.poll(); e != null; e = EVENTS.poll()) {
            seen.add(e);
        }
        if (seen.isEmpty() || exempt(context.getElement()) || exempt(context.getTestClass().map(c -> c))) {
            return;
        }
        throw new AssertionError("the gateway logged " + seen.size() + " unexpected exception(s) (logger "
                + Unexpected.NAME + ") during this " + what + "; each is a bug (a 500 or a failed connection), or "
                + "the test provokes it on purpose and says so with @ProvokesUnexpectedException:\n  "
                + String.join("\n  ", seen));
    }

    private static boolean exempt(Optional<? extends AnnotatedElement> element) {
        return element.map(e -> e.isAnnotationPresent(ProvokesUnexpectedException.class)).orElse(false);
    }

    private static String describe(ILoggingEvent e) {
        StringBuilder s = new StringBuilder().append(Instant.ofEpochMilli(e.getTimeStamp())).append(" [")
                .append(e.getThreadName()).append("] ").append(e.getFormattedMessage());
        for (IThrowableProxy t = e.getThrowableProxy(); t != null; t = t.getCause()) {
            s.append(t == e.getThrowableProxy() ? ": " : "; caused by ").append(t.getClassName()).append(": ")
                    .append(t.getMessage());
            if (t.getStackTraceElementProxyArray().length > 0) {
                s.append(" at ").append(t.getStackTraceElementProxyArray()[0].getStackTraceElement());
            }
        }
        return s.toString();
    }

    /**
     * An event of {@value Unexpected#NAME} in a gateway's output, as the default log's text pattern writes it
     * ({@code 2026-11-29T12:00:00.000+00:00 ERROR [thread] unexpected - message}, with {@code trace.id=... span.id=...}
     * after the logger while an exchange is handled) or as {@code logging.format: json}'s ECS encoder does.
     */
    private static final Pattern IN_OUTPUT = Pattern.compile(
            "^.*(?: ERROR +\\[[^\\n]*?\\] unexpected(?: trace\\.id=[0-9a-f]+ span\\.id=[0-9a-f]+)? - "
                    + "|\"log\\.logger\": ?\"" + Pattern.quote(Unexpected.NAME) + "\").*$(?:\\n[^\\n]*)?",
            Pattern.MULTILINE);

    /** The unexpected-exception events in a gateway process's output (each with the line after it); empty if none. */
    public static List<String> inOutput(String output) {
        List<String> found = new ArrayList<>();
        Matcher m = IN_OUTPUT.matcher(output);
        while (m.find()) {
            found.add(m.group());
        }
        return found;
    }
}
