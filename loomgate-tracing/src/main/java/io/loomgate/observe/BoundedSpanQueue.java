package io.loomgate.observe;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.opentelemetry.context.Context;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.trace.ReadWriteSpan;
import io.opentelemetry.sdk.trace.ReadableSpan;
import io.opentelemetry.sdk.trace.SpanProcessor;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.BatchSpanProcessor;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import java.time.Duration;
import java.util.Collection;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The SDK's batch processor with its bounded queue, and the count of what it could not take: a span ended while
 * {@code capacity} spans wait for (or are in) an export is dropped here, at once, and counted in
 * {@code loomgate.tracing.spans.dropped}, so a slow or absent collector never blocks a request nor grows the heap. The
 * batch processor's own drops are counted only in OpenTelemetry metrics, which the gateway does not run; since this
 * counts every span from hand-over to export, its queue never fills and its drops are these.
 */
final class BoundedSpanQueue implements SpanProcessor {
    /** How long spans wait to fill a batch before it is sent anyway. */
    static final Duration SCHEDULE_DELAY = Duration.ofSeconds(1);
    private static final int MAX_BATCH = 512;

    private static final Logger LOG = LoggerFactory.getLogger(BoundedSpanQueue.class);
    private static final Duration WARN_EVERY = Duration.ofMinutes(1);

    private final SpanProcessor batch;
    private final int capacity;
    private final AtomicInteger pending = new AtomicInteger();
    private final Counter dropped;

    BoundedSpanQueue(SpanExporter exporter, String endpoint, int capacity, MeterRegistry registry) {
        this.capacity = capacity;
        this.dropped = Counter.builder("loomgate.tracing.spans.dropped")
                .description("Spans dropped because the export queue (tracing.queue-size) was full").register(registry);
        Counter exported = Counter.builder("loomgate.tracing.spans.exported")
                .description("Spans the collector accepted").register(registry);
        Counter failed = Counter.builder("loomgate.tracing.spans.failed")
                .description("Spans whose export failed (collector down, refused, timed out)").register(registry);
        this.batch = BatchSpanProcessor.builder(new Counting(exporter, endpoint, pending, exported, failed,
                        new AtomicLong()))
                .setMaxQueueSize(capacity)
                .setMaxExportBatchSize(Math.min(MAX_BATCH, capacity))
                .setScheduleDelay(SCHEDULE_DELAY)
                .setMeterProvider(io.opentelemetry.api.metrics.MeterProvider::noop)
                .build();
    }

    @Override
    public void onStart(Context parentContext, ReadWriteSpan span) {
    }

    @Override
    public boolean isStartRequired() {
        return false;
    }

    @Override
    public void onEnd(ReadableSpan span) {
        if (!span.getSpanContext().isSampled()) {
            return;
        }
        if (pending.incrementAndGet() > capacity) {
            pending.decrementAndGet();
            dropped.increment();
            return;
        }
        batch.onEnd(span);
    }

    @Override
    public boolean isEndRequired() {
        return true;
    }

    @Override
    public CompletableResultCode shutdown() {
        return batch.shutdown();
    }

    @Override
    public CompletableResultCode forceFlush() {
        return batch.forceFlush();
    }

    /**
     * The exporter, counting each batch out of {@code pending} as it goes, and its outcome; a failed batch is logged
     * as one line, at most once a minute (the SDK's own log, a stack trace per failure, is turned off).
     */
    private record Counting(SpanExporter exporter, String endpoint, AtomicInteger pending, Counter exported,
                            Counter failed, AtomicLong lastWarned) implements SpanExporter {
        @Override
        public CompletableResultCode export(Collection<SpanData> spans) {
            int n = spans.size();
            pending.addAndGet(-n);
            CompletableResultCode result = exporter.export(spans);
            result.whenComplete(() -> {
                if (result.isSuccess()) {
                    exported.increment(n);
                    return;
                }
                failed.increment(n);
                long now = System.nanoTime();
                long last = lastWarned.get();
                if ((last == 0 || now - last > WARN_EVERY.toNanos()) && lastWarned.compareAndSet(last, now)) {
                    Throwable why = result.getFailureThrowable();
                    LOG.warn("tracing: {} spans not exported to {} ({}); counted in loomgate_tracing_spans_failed_total, "
                            + "this is said at most once a minute", n, endpoint,
                            why == null ? "the collector refused them" : why.toString());
                }
            });
            return result;
        }

        @Override
        public CompletableResultCode flush() {
            return exporter.flush();
        }

        @Override
        public CompletableResultCode shutdown() {
            return exporter.shutdown();
        }
    }
}
