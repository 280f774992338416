package io.loomgate.observe;

import java.net.URI;

/**
 * What the {@code tracing:} section asks for, as the tracer takes it (docs/configuration.md, "tracing"; the
 * defaults are the config's, {@code GatewayConfig.TracingSpec}).
 *
 * @param endpoint       where spans go: an OTLP HTTP/protobuf traces URL ({@code http://host:4318/v1/traces})
 * @param ratio          the parent-based sampler's ratio for traces that start here (0.0 to 1.0); a trace that
 *                       comes in with a traceparent keeps the client's decision
 * @param serviceName    the resource's {@code service.name}
 * @param serviceVersion the resource's {@code service.version} (the gateway's version), or null
 * @param queueSize      spans the batch processor holds waiting for export; more are dropped and counted
 */
public record TracingSettings(URI endpoint, double ratio, String serviceName, String serviceVersion, int queueSize) {
    public TracingSettings {
        if (!(ratio >= 0 && ratio <= 1)) {
            throw new IllegalArgumentException("sampler: expected a ratio from 0.0 to 1.0, got " + ratio);
        }
        if (queueSize < 1) {
            throw new IllegalArgumentException("queue-size: expected at least 1, got " + queueSize);
        }
    }
}
