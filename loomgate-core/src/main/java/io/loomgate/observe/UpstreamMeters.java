package io.loomgate.observe;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;

/**
 * The meters of one upstream (by id): how its connections were acquired (reused or dialled), the reuse ratio, and
 * upstream errors by kind. Registered when the upstream is first seen.
 */
final class UpstreamMeters {
    static final List<String> ERROR_KINDS = List.of("refused", "timeout", "reset", "bad_response", "pool_exhausted");

    final String upstreamId;
    final Counter acquiredReused;
    final Counter acquiredFresh;
    private final LazyCounters errors;

    UpstreamMeters(MeterRegistry registry, String upstreamId) {
        this.upstreamId = upstreamId;
        acquiredReused = Counter.builder("loomgate.upstream.acquired")
                .description("Upstream connections handed to exchanges, by whether they were reused")
                .tag("upstream", upstreamId).tag("reused", "true").register(registry);
        acquiredFresh = Counter.builder("loomgate.upstream.acquired")
                .description("Upstream connections handed to exchanges, by whether they were reused")
                .tag("upstream", upstreamId).tag("reused", "false").register(registry);
        errors = new LazyCounters(ERROR_KINDS.size(), i -> Counter.builder("loomgate.upstream.errors")
                .description("Exchanges failed by the upstream, by kind")
                .tag("upstream", upstreamId).tag("kind", ERROR_KINDS.get(i)).register(registry));
        Gauge.builder("loomgate.upstream.reuse.ratio", this, UpstreamMeters::reuseRatio)
                .description("Share of acquired upstream connections that were reused keep-alive connections")
                .tag("upstream", upstreamId).register(registry);
    }

    void error(String kind) {
        errors.get(ERROR_KINDS.indexOf(kind)).increment();
    }

    long errorCount() {
        double sum = 0;
        for (int i = 0; i < errors.size(); i++) {
            sum += errors.count(i);
        }
        return (long) sum;
    }

    /** Reused / all acquisitions since start; 0 before the first. */
    double reuseRatio() {
        double reused = acquiredReused.count();
        double all = reused + acquiredFresh.count();
        return all == 0 ? 0 : reused / all;
    }
}
