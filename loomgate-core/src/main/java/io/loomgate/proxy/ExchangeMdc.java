package io.loomgate.proxy;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.util.Deque;
import java.util.HashMap;
import java.util.Map;
import org.slf4j.ILoggerFactory;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;
import org.slf4j.spi.MDCAdapter;

/**
 * Logback's MDC with the exchange's two ids in it without putting them there: every call goes to Logback's own
 * adapter, and {@code trace.id} and {@code span.id} (when that adapter has no value of its own for them) are answered
 * from the exchange the thread is handling ({@link LogContext#current()}), written as hex when asked. Installed where
 * both readers look: {@code org.slf4j.MDC} (a plugin's or embedder's {@code MDC.get}, {@code getCopyOfContextMap}) and
 * Logback's {@code LoggerContext} (each logging event's MDC map, which the text pattern's {@code %X{trace.id}}, the ECS
 * encoder and an operator's own configuration read, on the logging thread, also before an async appender queues it).
 *
 * <p>No lock and no state of its own: Logback's adapter keeps its ThreadLocals, and a line logged outside an exchange
 * costs one ThreadLocal read more.
 */
final class ExchangeMdc implements MDCAdapter {
    private final MDCAdapter logback;

    private ExchangeMdc(MDCAdapter logback) {
        this.logback = logback;
    }

    /**
     * Puts this adapter in front of Logback's, in SLF4J's MDC (its static field: SLF4J has no setter, and a service
     * provider of our own beside Logback's would make SLF4J warn about two) and in Logback's LoggerContext (public
     * {@code setMDCAdapter}; Logback records a warning status that it was set twice). False, and nothing changed, when
     * the binding is not Logback or either step is refused (SLF4J on the module path, not opened): the ids are then
     * put in the MDC for each exchange.
     */
    static boolean install() {
        try {
            ILoggerFactory factory = LoggerFactory.getILoggerFactory();
            if (!factory.getClass().getName().equals("ch.qos.logback.classic.LoggerContext")) {
                return false;
            }
            Method get = factory.getClass().getMethod("getMDCAdapter");
            Method set = factory.getClass().getMethod("setMDCAdapter", MDCAdapter.class);
            MDCAdapter logback = MDC.getMDCAdapter();
            if (logback instanceof ExchangeMdc || get.invoke(factory) != logback) {
                return logback instanceof ExchangeMdc;
            }
            Field slf4j = MDC.class.getDeclaredField("mdcAdapter");
            slf4j.setAccessible(true);
            ExchangeMdc mine = new ExchangeMdc(logback);
            slf4j.set(null, mine);
            try {
                set.invoke(factory, mine);
            } catch (ReflectiveOperationException | RuntimeException e) {
                slf4j.set(null, logback);
                return false;
            }
            return true;
        } catch (ReflectiveOperationException | RuntimeException e) {
            return false;
        }
    }

    @Override
    public String get(String key) {
        String v = logback.get(key);
        if (v != null || !(key.equals(LogContext.TRACE_ID) || key.equals(LogContext.SPAN_ID))) {
            return v;
        }
        TraceContext t = LogContext.current();
        if (t == null) {
            return null;
        }
        return key.equals(LogContext.TRACE_ID) ? t.traceId() : t.spanId();
    }

    @Override
    public Map<String, String> getCopyOfContextMap() {
        Map<String, String> m = logback.getCopyOfContextMap();
        TraceContext t = LogContext.current();
        if (t == null) {
            return m;
        }
        Map<String, String> copy = m == null ? new HashMap<>(4) : m; // Logback's copy is a fresh HashMap
        copy.putIfAbsent(LogContext.TRACE_ID, t.traceId());
        copy.putIfAbsent(LogContext.SPAN_ID, t.spanId());
        return copy;
    }

    @Override
    public void put(String key, String val) {
        logback.put(key, val);
    }

    @Override
    public void remove(String key) {
        logback.remove(key);
    }

    @Override
    public void clear() {
        logback.clear();
    }

    @Override
    public void setContextMap(Map<String, String> contextMap) {
        logback.setContextMap(contextMap);
    }

    @Override
    public void pushByKey(String key, String value) {
        logback.pushByKey(key, value);
    }

    @Override
    public String popByKey(String key) {
        return logback.popByKey(key);
    }

    @Override
    public Deque<String> getCopyOfDequeByKey(String key) {
        return logback.getCopyOfDequeByKey(key);
    }

    @Override
    public void clearDequeByKey(String key) {
        logback.clearDequeByKey(key);
    }
}
