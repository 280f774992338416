package io.loomgate.observe;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * The meters of one upstream (by id): how its connections were acquired (reused or dialled), the reuse ratio, and
 * upstream errors by kind. Registered when the upstream is first seen.
 */
final class UpstreamMeters {
    private static final UpstreamErrorKind[] ERROR_KINDS = UpstreamErrorKind.values();

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
        // One slot per kind, indexed by ordinal: the table is the enum, so no kind can be missing from it.
        errors = new LazyCounters(ERROR_KINDS.length, i -> Counter.builder("loomgate.upstream.errors")
                .description("Exchanges failed by the upstream, by kind")
                .tag("upstream", upstreamId).tag("kind", ERROR_KINDS[i].label).register(registry));
        Gauge.builder("loomgate.upstream.reuse.ratio", this, UpstreamMeters::reuseRatio)
                .description("Share of acquired upstream connections that were reused keep-alive connections")
                .tag("upstream", upstreamId).register(registry);
    }

    void error(UpstreamErrorKind kind) {
        errors.get(kind.ordinal()).increment();
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
