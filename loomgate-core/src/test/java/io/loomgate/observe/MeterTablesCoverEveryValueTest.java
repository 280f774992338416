package io.loomgate.observe;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.grpc.GrpcStatus;
import io.loomgate.proxy.ProxyFailure;
import io.loomgate.ratelimit.RateLimitListener;
import io.loomgate.testkit.PrometheusText;
import java.util.Locale;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The metrics keep their counters in fixed tables indexed by a failure kind, an upstream error kind, a method, a
 * status class, a gRPC code or a rate-limit outcome. Each table is walked with every value its index can take (and
 * with values outside the known sets): every one is counted under its own label and none throws. A value without a
 * slot once threw from the exchange listener and turned a 502 into a 500.
 */
class MeterTablesCoverEveryValueTest {
    private final GatewayMetrics metrics = new GatewayMetrics();

    @AfterEach
    void close() {
        metrics.close();
    }

    private PrometheusText scrape() {
        return new PrometheusText(metrics.scrape(null).body());
    }

    @Test
    void everyUpstreamFailureKindHasAnUpstreamErrorKindAndNoOtherKindHasOne() {
        for (ProxyFailure.Kind kind : ProxyFailure.Kind.values()) {
            boolean upstream = kind.source() == ProxyFailure.Source.UPSTREAM;
            assertThat(UpstreamErrorKind.of(kind) != null).as(kind.name()).isEqualTo(upstream);
        }
    }

    @Test
    void everyFailureKindIsCountedOnItsRouteAndEveryUpstreamOneOnItsUpstream() {
        for (ProxyFailure.Kind kind : ProxyFailure.Kind.values()) {
            FakeExchange x = FakeExchange.ok("r", "GET", 200, 1);
            metrics.exchangeStart(x);
            metrics.routeMatched(x);
            metrics.exchangeFailed(x.failedWith(kind, kind.status()));
        }
        PrometheusText s = scrape();
        for (ProxyFailure.Kind kind : ProxyFailure.Kind.values()) {
            assertThat(s.value("loomgate_exchange_failures_total", "route=r",
                    "kind=" + kind.name().toLowerCase(Locale.ROOT))).as(kind.name()).isEqualTo(1);
        }
        for (UpstreamErrorKind kind : UpstreamErrorKind.values()) {
            long failureKinds = java.util.Arrays.stream(ProxyFailure.Kind.values())
                    .filter(k -> UpstreamErrorKind.of(k) == kind).count();
            assertThat(failureKinds).as("failure kinds counted as %s", kind).isPositive();
            assertThat(s.value("loomgate_upstream_errors_total", "upstream=up-r", "kind=" + kind.label))
                    .as(kind.label).isEqualTo(failureKinds);
        }
    }

    @Test
    void everyStatusAndMethodHasASlotAndThoseOutsideTheKnownSetsShareOne() {
        int[] statuses = {Integer.MIN_VALUE, -1, 0, 99, 100, 199, 200, 299, 300, 404, 500, 599, 600, 999,
            Integer.MAX_VALUE};
        String[] methods = {"GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE", "CONNECT", "BREW",
            "", null};
        for (String method : methods) {
            for (int status : statuses) {
                FakeExchange x = FakeExchange.ok("m", method, status, 1);
                metrics.exchangeStart(x);
                metrics.routeMatched(x);
                metrics.exchangeEnd(x);
            }
        }
        PrometheusText s = scrape();
        assertThat(s.value("loomgate_requests_total", "route=m", "method=GET", "status=none")).isEqualTo(7);
        assertThat(s.value("loomgate_requests_total", "route=m", "method=GET", "status=1xx")).isEqualTo(2);
        assertThat(s.value("loomgate_requests_total", "route=m", "method=GET", "status=5xx")).isEqualTo(2);
        assertThat(s.value("loomgate_requests_total", "route=m", "method=OTHER", "status=none")).isEqualTo(3 * 7);
    }

    @Test
    void everyGrpcCodeHasASlotAndCodesGrpcDoesNotDefineAreOther() {
        for (int code = -2; code <= 999; code++) {
            FakeExchange x = FakeExchange.ok("g", "POST", 200, 1);
            metrics.exchangeStart(x);
            metrics.routeMatched(x);
            metrics.exchangeEnd((io.loomgate.proxy.ExchangeView) x.asGrpc(code));
        }
        PrometheusText s = scrape();
        for (GrpcStatus status : GrpcStatus.values()) {
            assertThat(s.value("loomgate_grpc_requests_total", "route=g", "grpc_status=" + status.name()))
                    .as(status.name()).isEqualTo(1);
        }
        // -1 is "not a gRPC call": not counted at all; every other code outside 0..16 is OTHER.
        assertThat(s.value("loomgate_grpc_requests_total", "route=g", "grpc_status=OTHER"))
                .isEqualTo(1000 - GrpcStatus.values().length);
    }

    @Test
    void everyRateLimitOutcomeHasASlot() {
        for (RateLimitListener.Outcome outcome : RateLimitListener.Outcome.values()) {
            metrics.rateLimits().decided("rl", outcome);
        }
        PrometheusText s = scrape();
        for (RateLimitListener.Outcome outcome : RateLimitListener.Outcome.values()) {
            assertThat(s.value("loomgate_ratelimit_requests_total", "route=rl",
                    "outcome=" + outcome.name().toLowerCase(Locale.ROOT))).as(outcome.name()).isEqualTo(1);
        }
    }
}
