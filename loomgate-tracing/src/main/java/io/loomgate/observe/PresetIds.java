package io.loomgate.observe;

import io.opentelemetry.sdk.trace.IdGenerator;

/**
 * The SDK's id generator, made to use the ids the gateway already chose (proxy's TraceContext: the exchange's span id
 * is the one the logs report, an attempt's is the one its traceparent sent upstream), so traces, logs and origins
 * agree. The SDK's span builder takes no ids; it asks its generator while it starts a span, on the starting thread,
 * so {@link #startingWith} hands them over in a one-slot ThreadLocal, set just before that call and cleared right
 * after (never a cache: nothing stays in it between calls). Asked with nothing handed over, it draws random ids.
 */
final class PresetIds implements IdGenerator {
    private static final IdGenerator RANDOM = IdGenerator.random();
    /** [traceId, spanId] for the span being started on this thread; a new trace's id only when it has no parent. */
    private final ThreadLocal<String[]> next = new ThreadLocal<>();

    /** Runs {@code start} (which starts one span) with these ids handed to the SDK; {@code traceId} may be null. */
    <T> T startingWith(String traceId, String spanId, java.util.function.Supplier<T> start) {
        next.set(new String[] {traceId, spanId});
        try {
            return start.get();
        } finally {
            next.remove();
        }
    }

    @Override
    public String generateSpanId() {
        String[] ids = next.get();
        return ids == null || ids[1] == null ? RANDOM.generateSpanId() : ids[1];
    }

    @Override
    public String generateTraceId() {
        String[] ids = next.get();
        return ids == null || ids[0] == null ? RANDOM.generateTraceId() : ids[0];
    }
}
