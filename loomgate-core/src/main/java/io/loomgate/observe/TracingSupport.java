package io.loomgate.observe;

import io.loomgate.proxy.ExchangeListener;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Optional;
import java.util.ServiceLoader;

/**
 * The OpenTelemetry tracer behind the {@code tracing:} section, which lives in the optional module {@value #MODULE}
 * with the OpenTelemetry SDK and its OTLP exporter, so an embedding of loomgate-core (and a gateway without tracing)
 * carries none of it. The module supplies the one implementation, found with {@link ServiceLoader} on Loomgate's
 * class loader; without it a configuration with {@code tracing.enabled: true} is refused with this module's name.
 */
interface TracingSupport {
    /** The Maven module (artifact id) that implements this. */
    String MODULE = "loomgate-tracing";

    /** Starts exporting: spans of the exchanges the returned listener hears of go to {@code settings.endpoint()}. */
    Tracer start(TracingSettings settings, MeterRegistry registry);

    /** The exchanges' listener that makes the spans; {@link #close} exports what is still queued. */
    interface Tracer extends ExchangeListener, AutoCloseable {
        @Override
        void close();
    }

    /** The implementation, or empty when {@value #MODULE} is not on the class path. */
    static Optional<TracingSupport> find() {
        return ServiceLoader.load(TracingSupport.class, TracingSupport.class.getClassLoader()).findFirst();
    }
}
