package io.loomgate.proxy;

import org.slf4j.MDC;

/**
 * The trace and span ids of the exchange a thread is handling, in the SLF4J MDC under their ECS names, so every
 * application-log line written while it is handled (retries, failures, filters) carries them, as its access-log line
 * does. The MDC is a ThreadLocal of the exchange's own virtual thread: set once the ids exist (the traceparent sent
 * upstream), removed when the exchange ends, so it never outlives the request nor grows.
 */
final class LogContext {
    /** ECS {@code trace.id}: the W3C trace id. */
    static final String TRACE_ID = "trace.id";
    /** ECS {@code span.id}: the gateway's span for the exchange, the parent id it sent upstream. */
    static final String SPAN_ID = "span.id";

    private LogContext() {
    }

    static void enter(String traceId, String spanId) {
        MDC.put(TRACE_ID, traceId);
        MDC.put(SPAN_ID, spanId);
    }

    /** Removes only the gateway's keys: an embedding application's own MDC entries stay. */
    static void leave() {
        MDC.remove(TRACE_ID);
        MDC.remove(SPAN_ID);
    }
}
