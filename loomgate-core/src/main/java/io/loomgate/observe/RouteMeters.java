package io.loomgate.observe;

import io.loomgate.grpc.GrpcStatus;
import io.loomgate.proxy.ProxyFailure;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * The meters of one route, registered once when the route is first seen and then only incremented. Also keeps an
 * HdrHistogram recorder of total latencies for the dashboard's per-second percentiles (Prometheus histograms are
 * cumulative; the dashboard wants the last second).
 */
final class RouteMeters {
    /** Histogram buckets of the latency timers: 1 ms to 10 s, enough to place a request without unbounded series. */
    static final Duration[] LATENCY_BUCKETS = {
        Duration.ofMillis(1), Duration.ofMillis(2), Duration.ofMillis(5), Duration.ofMillis(10),
        Duration.ofMillis(25), Duration.ofMillis(50), Duration.ofMillis(100), Duration.ofMillis(250),
        Duration.ofMillis(500), Duration.ofSeconds(1), Duration.ofMillis(2500), Duration.ofSeconds(5),
        Duration.ofSeconds(10)};

    final String routeId;
    private final LazyCounters requests;
    private final LazyCounters failures;
    /** gRPC calls by the grpc-status their client got: one slot per code, and one for codes gRPC does not define. */
    private final LazyCounters grpcCalls;
    final Timer total;
    final Timer upstream;
    final Counter bytesIn;
    final Counter bytesOut;
    final Counter rejected;
    final AtomicInteger inFlight = new AtomicInteger();
    /** Total latency in microseconds, for the dashboard. */
    private final Recorder recent = new Recorder(3);

    RouteMeters(MeterRegistry registry, String routeId) {
        this.routeId = routeId;
        int statuses = Labels.STATUS_CLASSES.size();
        requests = new LazyCounters(Labels.METHODS.size() * statuses, i -> Counter.builder("loomgate.requests")
                .description("Requests answered, by route, method and status class")
                .tag("route", routeId)
                .tag("method", Labels.METHODS.get(i / statuses))
                .tag("status", Labels.STATUS_CLASSES.get(i % statuses))
                .register(registry));
        ProxyFailure.Kind[] kinds = ProxyFailure.Kind.values();
        failures = new LazyCounters(kinds.length, i -> Counter.builder("loomgate.exchange.failures")
                .description("Exchanges that failed, by route and failure kind")
                .tag("route", routeId)
                .tag("kind", kinds[i].name().toLowerCase(Locale.ROOT))
                .register(registry));
        GrpcStatus[] codes = GrpcStatus.values();
        grpcCalls = new LazyCounters(codes.length + 1, i -> Counter.builder("loomgate.grpc.requests")
                .description("gRPC calls answered, by route and the grpc-status the client got")
                .tag("route", routeId)
                .tag("grpc_status", i < codes.length ? codes[i].name() : "OTHER")
                .register(registry));
        total = Timer.builder("loomgate.request.duration")
                .description("Time from the request head read to the end of the response, by route")
                .tag("route", routeId)
                .serviceLevelObjectives(LATENCY_BUCKETS)
                .register(registry);
        upstream = Timer.builder("loomgate.upstream.duration")
                .description("Time from sending the request upstream to receiving the response head, by route")
                .tag("route", routeId)
                .serviceLevelObjectives(LATENCY_BUCKETS)
                .register(registry);
        bytesIn = Counter.builder("loomgate.request.body").baseUnit("bytes")
                .description("Request body bytes read from clients, by route")
                .tag("route", routeId).register(registry);
        bytesOut = Counter.builder("loomgate.response.body").baseUnit("bytes")
                .description("Response body bytes written to clients, by route")
                .tag("route", routeId).register(registry);
        rejected = Counter.builder("loomgate.route.rejected")
                .description("Requests refused because the route's max-in-flight was reached (503)")
                .tag("route", routeId).register(registry);
        Gauge.builder("loomgate.route.in.flight", inFlight, AtomicInteger::get)
                .description("Requests being proxied on this route now")
                .tag("route", routeId).register(registry);
    }

    /** Counts one finished exchange (ended or failed). */
    void finished(String method, int status, long totalNanos, long upstreamNanos, long bytesInCount,
                  long bytesOutCount) {
        requests.get(Labels.methodIndex(method) * Labels.STATUS_CLASSES.size() + Labels.statusClassIndex(status))
                .increment();
        if (totalNanos >= 0) {
            total.record(totalNanos, TimeUnit.NANOSECONDS);
            recent.recordValue(Math.max(0, totalNanos / 1000));
        }
        if (upstreamNanos >= 0) {
            upstream.record(upstreamNanos, TimeUnit.NANOSECONDS);
        }
        if (bytesInCount > 0) {
            bytesIn.increment(bytesInCount);
        }
        if (bytesOutCount > 0) {
            bytesOut.increment(bytesOutCount);
        }
    }

    /** Counts one gRPC call by its status code (an array read after the first of each code); any other as OTHER. */
    void grpcFinished(int code) {
        GrpcStatus status = GrpcStatus.ofCode(code);
        grpcCalls.get(status == null ? grpcCalls.size() - 1 : status.ordinal()).increment();
    }

    void failed(ProxyFailure.Kind kind) {
        failures.get(kind.ordinal()).increment();
        if (kind == ProxyFailure.Kind.OVERLOADED) {
            rejected.increment();
        }
    }

    /** Every request counted on this route so far. */
    long requestCount() {
        double sum = 0;
        for (int i = 0; i < requests.size(); i++) {
            sum += requests.count(i);
        }
        return (long) sum;
    }

    long failureCount() {
        double sum = 0;
        for (int i = 0; i < failures.size(); i++) {
            sum += failures.count(i);
        }
        return (long) sum;
    }

    /** The latencies recorded since the previous call (the recorder flips to a fresh histogram). */
    Histogram takeRecentLatencies() {
        return recent.getIntervalHistogram();
    }
}
