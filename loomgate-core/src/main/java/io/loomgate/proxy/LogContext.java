package io.loomgate.proxy;

import io.loomgate.threads.ThreadMarks;
import org.slf4j.MDC;

/**
 * The trace and span ids of the exchange a thread is handling, under their ECS names ({@code trace.id},
 * {@code span.id}) in the SLF4J MDC, so every application-log line written while it is handled (retries, failures,
 * filters, a plugin's own) carries them, as its access-log line does, and {@code MDC.get} answers them.
 *
 * <p>Two ways, chosen once. With Logback as the binding (the gateway's jar, an embedding that uses Logback),
 * {@link ExchangeMdc} answers the two keys for the MDC from the exchange's {@link TraceContext}, with which this class
 * marks the thread ({@link ThreadMarks}: no ThreadLocal on a new stream thread), and writes them as hex only when a
 * line is logged or a key is read. Putting them in Logback's MDC on every request (its two ThreadLocals and a HashMap
 * on each new HTTP/2 stream thread: 322 B) and writing the ids as hex (which nothing read on most requests) were a
 * fifth of W8's allocation per request. With any other binding, the ids are put in its MDC, as strings, for each
 * exchange.
 *
 * <p>Either way the ids are set when they exist (the traceparent drawn) and cleared when the exchange ends, or, for an
 * HTTP/2 stream, when its thread ends (so the server's own lines about the stream after the handler, a handler that
 * failed, carry them as before); they never outlive the thread's exchange.
 */
final class LogContext {
    /** ECS {@code trace.id}: the W3C trace id. */
    static final String TRACE_ID = "trace.id";
    /** ECS {@code span.id}: the gateway's span for the exchange, the parent id it sent upstream. */
    static final String SPAN_ID = "span.id";

    /** Whether {@link ExchangeMdc} answers the MDC's two keys (Logback is the binding and took it). */
    private static final boolean ANSWERED = ExchangeMdc.install();

    private LogContext() {
    }

    /** Nothing but this class's initialisation (the MDC adapter's installation), at a moment of the caller's choice. */
    static void initialise() {
        // the call is the point: the JVM initialises the class before running it
    }

    static void enter(TraceContext trace) {
        if (ANSWERED) {
            trace.thread = Thread.currentThread();
            ThreadMarks.mark(trace);
        } else {
            MDC.put(TRACE_ID, trace.traceId());
            MDC.put(SPAN_ID, trace.spanId());
        }
    }

    /**
     * Removes only the gateway's keys (an embedding application's own MDC entries stay), unless {@code threadEnds}:
     * an HTTP/2 stream's thread, whose mark goes when it ends, and whose MDC, with any binding, goes with it (clearing
     * the MDC of a thread that ends, four ThreadLocal writes, was ~1% of W8's CPU).
     */
    static void leave(boolean threadEnds) {
        if (threadEnds) {
            return;
        }
        if (ANSWERED) {
            ThreadMarks.unmark();
        } else {
            MDC.remove(TRACE_ID);
            MDC.remove(SPAN_ID);
        }
    }

    /** The trace of the exchange this thread is handling, or null. */
    static TraceContext current() {
        return ThreadMarks.current() instanceof TraceContext t ? t : null;
    }
}
