package io.loomgate.observe;

import io.micrometer.core.instrument.MeterRegistry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.common.AttributesBuilder;
import io.opentelemetry.api.metrics.MeterProvider;
import io.opentelemetry.exporter.otlp.http.trace.OtlpHttpSpanExporter;
import io.opentelemetry.sdk.resources.Resource;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.samplers.Sampler;
import java.time.Duration;

/**
 * {@link TracingSupport} on the OpenTelemetry SDK: a tracer provider with the gateway's ids ({@link PresetIds}), a
 * parent-based ratio sampler, the resource ({@code service.name}, {@code service.version}) and the bounded batch
 * export ({@link BoundedSpanQueue}) over OTLP HTTP/protobuf with the JDK's HttpClient. Found by ServiceLoader.
 */
public final class OtelTracingSupport implements TracingSupport {
    /** One export's limit: a collector that does not answer in time fails that batch, which is counted. */
    static final Duration EXPORT_TIMEOUT = Duration.ofSeconds(10);
    /** How long closing waits for the queued spans to go out. */
    static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(5);
    /**
     * The SDK logs through java.util.logging, straight to stderr: an unreachable collector would print a stack trace
     * every few seconds beside the gateway's own log. Off; {@link BoundedSpanQueue} says it in one line and counts it.
     * Held here because java.util.logging keeps its loggers only weakly (a level set on a dropped one is lost).
     */
    private static final java.util.logging.Logger SDK_LOG = java.util.logging.Logger.getLogger("io.opentelemetry");

    @Override
    public Tracer start(TracingSettings settings, MeterRegistry registry) {
        SDK_LOG.setLevel(java.util.logging.Level.OFF);
        AttributesBuilder resource = Attributes.builder()
                .put(AttributeKey.stringKey("service.name"), settings.serviceName());
        if (settings.serviceVersion() != null) {
            resource.put(AttributeKey.stringKey("service.version"), settings.serviceVersion());
        }
        OtlpHttpSpanExporter exporter = OtlpHttpSpanExporter.builder()
                .setEndpoint(settings.endpoint().toString())
                .setTimeout(EXPORT_TIMEOUT)
                .setMeterProvider(MeterProvider::noop) // its own metrics would need the metrics SDK: counted here
                .build();
        Sampler sampler = Sampler.parentBased(Sampler.traceIdRatioBased(settings.ratio()));
        PresetIds ids = new PresetIds();
        SdkTracerProvider provider = SdkTracerProvider.builder()
                .setResource(Resource.getDefault().merge(Resource.create(resource.build())))
                .setSampler(sampler)
                .setIdGenerator(ids)
                .addSpanProcessor(new BoundedSpanQueue(exporter, settings.endpoint().toString(),
                        settings.queueSize(), registry))
                .build();
        return new ExchangeSpans(provider, sampler, ids);
    }
}
