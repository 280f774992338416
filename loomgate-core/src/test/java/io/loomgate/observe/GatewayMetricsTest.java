package io.loomgate.observe;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.proxy.ProxyFailure;
import io.loomgate.testkit.PrometheusText;
import io.loomgate.upstream.Endpoint;
import io.loomgate.upstream.EvictionReason;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Synthetic listener events in, exact Prometheus samples out: the names and labels dashboards rely on. */
class GatewayMetricsTest {
    private final GatewayMetrics metrics = new GatewayMetrics();

    @AfterEach
    void close() {
        metrics.close();
    }

    private PrometheusText scrape() {
        return new PrometheusText(metrics.scrape(null).body());
    }

    private void complete(io.loomgate.proxy.ExchangeView x) {
        metrics.exchangeStart(x);
        metrics.routeMatched(x);
        metrics.upstreamAcquired(x, false);
        metrics.responseHeadReceived(x);
        metrics.exchangeEnd(x);
    }

    @Test
    void gRpcCallsAreCountedByTheStatusTheirClientGotAndOthersAreNot() {
        complete(FakeExchange.ok("rpc", "POST", 200, 3).asGrpc(0));
        complete(FakeExchange.ok("rpc", "POST", 200, 3).asGrpc(14));
        complete(FakeExchange.ok("rpc", "POST", 200, 3).asGrpc(14));
        complete(FakeExchange.ok("rpc", "POST", 200, 3).asGrpc(42)); // not a gRPC code: counted, as OTHER
        complete(FakeExchange.ok("rpc", "POST", 200, 3));

        PrometheusText s = scrape();
        assertThat(s.value("loomgate_grpc_requests_total", "grpc_status=OK", "route=rpc")).isEqualTo(1);
        assertThat(s.value("loomgate_grpc_requests_total", "grpc_status=UNAVAILABLE", "route=rpc")).isEqualTo(2);
        assertThat(s.value("loomgate_grpc_requests_total", "grpc_status=OTHER", "route=rpc")).isEqualTo(1);
        assertThat(s.value("loomgate_requests_total", "route=rpc", "method=POST", "status=2xx")).isEqualTo(5);
    }

    @Test
    void countsRequestsByRouteMethodAndStatusClass() {
        for (int i = 0; i < 7; i++) {
            complete(FakeExchange.ok("users", "GET", 200, 3));
        }
        complete(FakeExchange.ok("users", "GET", 204, 3));
        complete(FakeExchange.ok("users", "POST", 404, 3));
        complete(FakeExchange.ok("orders", "BREW", 503, 3));

        PrometheusText s = scrape();
        assertThat(s.value("loomgate_requests_total", "route=users", "method=GET", "status=2xx")).isEqualTo(8);
        assertThat(s.value("loomgate_requests_total", "route=users", "method=POST", "status=4xx")).isEqualTo(1);
        assertThat(s.value("loomgate_requests_total", "route=orders", "method=OTHER", "status=5xx")).isEqualTo(1);
        assertThat(s.toString()).doesNotContain("BREW");
    }

    @Test
    void recordsTotalAndUpstreamLatencyAsHistogramsPerRoute() {
        complete(FakeExchange.ok("users", "GET", 200, 3));   // 3 ms total, 1.5 ms upstream
        complete(FakeExchange.ok("users", "GET", 200, 30));  // 30 ms total, 15 ms upstream

        PrometheusText s = scrape();
        assertThat(s.toString()).contains("# TYPE loomgate_request_duration_seconds histogram");
        assertThat(s.value("loomgate_request_duration_seconds_count", "route=users")).isEqualTo(2);
        assertThat(s.value("loomgate_request_duration_seconds_sum", "route=users")).isEqualTo(0.033);
        assertThat(s.value("loomgate_request_duration_seconds_bucket", "route=users", "le=0.005")).isEqualTo(1);
        assertThat(s.value("loomgate_request_duration_seconds_bucket", "route=users", "le=0.05")).isEqualTo(2);
        assertThat(s.value("loomgate_upstream_duration_seconds_count", "route=users")).isEqualTo(2);
        assertThat(s.value("loomgate_upstream_duration_seconds_bucket", "route=users", "le=0.002")).isEqualTo(1);
    }

    @Test
    void countsBodyBytesInAndOut() {
        complete(FakeExchange.ok("users", "POST", 201, 3).withBytes(1000, 20));
        complete(FakeExchange.ok("users", "GET", 200, 3).withBytes(0, 5000));

        PrometheusText s = scrape();
        assertThat(s.value("loomgate_request_body_bytes_total", "route=users")).isEqualTo(1000);
        assertThat(s.value("loomgate_response_body_bytes_total", "route=users")).isEqualTo(5020);
    }

    @Test
    void tracksInFlightPerRouteUntilTheExchangeEnds() {
        FakeExchange x = FakeExchange.ok("users", "GET", 200, 3);
        metrics.exchangeStart(x);
        metrics.routeMatched(x);
        metrics.routeMatched(x);
        assertThat(scrape().value("loomgate_route_in_flight", "route=users")).isEqualTo(2);

        metrics.exchangeEnd(x);
        metrics.exchangeFailed(x.failedWith(ProxyFailure.Kind.CLIENT_ABORTED, 0));
        PrometheusText s = scrape();
        assertThat(s.value("loomgate_route_in_flight", "route=users")).isZero();
        assertThat(s.value("loomgate_requests_total", "route=users", "status=none")).isEqualTo(1);
    }

    @Test
    void countsRejectionsAndUpstreamErrorsByKind() {
        FakeExchange x = FakeExchange.ok("users", "GET", 200, 3);
        metrics.routeMatched(x);
        metrics.exchangeFailed(x.failedWith(ProxyFailure.Kind.OVERLOADED, 503));
        metrics.routeMatched(x);
        metrics.exchangeFailed(x.failedWith(ProxyFailure.Kind.CONNECT_REFUSED, 502));
        metrics.routeMatched(x);
        metrics.exchangeFailed(x.failedWith(ProxyFailure.Kind.CONNECT_TIMEOUT, 502));
        metrics.routeMatched(x);
        metrics.exchangeFailed(x.failedWith(ProxyFailure.Kind.UPSTREAM_TIMEOUT, 504));
        metrics.routeMatched(x);
        metrics.exchangeFailed(x.failedWith(ProxyFailure.Kind.UPSTREAM_RESET, 502));

        PrometheusText s = scrape();
        assertThat(s.value("loomgate_route_rejected_total", "route=users")).isEqualTo(1);
        assertThat(s.value("loomgate_upstream_errors_total", "upstream=up-users", "kind=refused")).isEqualTo(1);
        assertThat(s.value("loomgate_upstream_errors_total", "upstream=up-users", "kind=timeout")).isEqualTo(2);
        assertThat(s.value("loomgate_upstream_errors_total", "upstream=up-users", "kind=reset")).isEqualTo(1);
        assertThat(s.value("loomgate_exchange_failures_total", "route=users", "kind=overloaded")).isEqualTo(1);
        assertThat(s.value("loomgate_requests_total", "route=users", "status=5xx")).isEqualTo(5);
        assertThat(metrics.recentErrors()).hasSize(5);
        assertThat(metrics.recentErrors().get(0).kind()).isEqualTo("upstream_reset");
    }

    @Test
    void anExchangeWithoutARouteCountsAsUnmatched() {
        FakeExchange x = new FakeExchange(null, "GET", "/nope", "127.0.0.1:1", null, null, 404, 0, -1, 1000, 0, 9,
                null, null);
        metrics.exchangeStart(x);
        metrics.exchangeFailed(x.failedWith(ProxyFailure.Kind.NO_ROUTE, 404));

        PrometheusText s = scrape();
        assertThat(s.value("loomgate_requests_total", "route=unmatched", "status=4xx")).isEqualTo(1);
        assertThat(s.value("loomgate_route_in_flight", "route=unmatched")).isZero();
    }

    @Test
    void reuseRatioIsReusedOverAllAcquisitionsPerUpstream() {
        FakeExchange x = FakeExchange.ok("users", "GET", 200, 3);
        metrics.upstreamAcquired(x, false);
        metrics.upstreamAcquired(x, true);
        metrics.upstreamAcquired(x, true);
        metrics.upstreamAcquired(x, true);

        PrometheusText s = scrape();
        assertThat(s.value("loomgate_upstream_reuse_ratio", "upstream=up-users")).isEqualTo(0.75);
        assertThat(s.value("loomgate_upstream_acquired_total", "upstream=up-users", "reused=true")).isEqualTo(3);
    }

    @Test
    void countsPoolEventsPerEndpoint() {
        Endpoint e = new Endpoint("127.0.0.1", 9000);
        metrics.connected(e, 2_000_000);
        metrics.connected(e, 4_000_000);
        metrics.connectFailed(e, new java.net.ConnectException("refused"));
        metrics.reused(e);
        metrics.evicted(e, EvictionReason.IDLE_TIMEOUT);
        metrics.evicted(e, EvictionReason.IDLE_TIMEOUT);

        PrometheusText s = scrape();
        assertThat(s.value("loomgate_upstream_connect_seconds_count", "endpoint=127.0.0.1:9000")).isEqualTo(2);
        assertThat(s.value("loomgate_upstream_connect_failures_total", "endpoint=127.0.0.1:9000")).isEqualTo(1);
        assertThat(s.value("loomgate_upstream_reused_total", "endpoint=127.0.0.1:9000")).isEqualTo(1);
        assertThat(s.value("loomgate_upstream_evictions_total", "endpoint=127.0.0.1:9000", "reason=idle-timeout"))
                .isEqualTo(2);
    }

    @Test
    void aPoolsReuseActionCountsOnTheEndpointsCounterFromItsFirstRunOn() {
        Endpoint e = new Endpoint("127.0.0.1", 9001);
        Runnable onReuse = metrics.reuseAction(e);
        assertThat(scrape().has("loomgate_upstream_reused_total"))
                .as("an endpoint's meters appear with its first event, not when a pool is made").isFalse();

        onReuse.run();
        onReuse.run();
        metrics.reused(e);

        assertThat(scrape().value("loomgate_upstream_reused_total", "endpoint=127.0.0.1:9001")).isEqualTo(3);
    }

    @Test
    void countsOpenClientConnections() {
        InetSocketAddress peer = new InetSocketAddress("127.0.0.1", 40000);
        metrics.connectionOpened(peer);
        metrics.connectionOpened(peer);
        metrics.connectionOpened(peer);
        metrics.connectionClosed(peer, 4);
        metrics.connectionRejected(peer);

        PrometheusText s = scrape();
        assertThat(s.value("loomgate_client_connections")).isEqualTo(2);
        assertThat(s.value("loomgate_client_connections_opened_total")).isEqualTo(3);
        assertThat(s.value("loomgate_client_connections_rejected_total")).isEqualTo(1);
    }

    @Test
    void exposesJvmProcessAndCarrierMetrics() {
        metrics.bindJvm();

        PrometheusText s = scrape();
        assertThat(s.has("jvm_memory_used_bytes")).isTrue();
        assertThat(s.has("process_cpu_usage")).isTrue();
        assertThat(s.has("jvm_threads_live_threads")).isTrue();
        assertThat(s.value("loomgate_carrier_parallelism")).isGreaterThanOrEqualTo(1);
        assertThat(s.has("loomgate_carrier_pool_size")).isTrue();
    }

    @Test
    void speaksOpenMetricsWhenAskedFor() {
        complete(FakeExchange.ok("users", "GET", 200, 3));
        GatewayMetrics.Scrape open = metrics.scrape("application/openmetrics-text;version=1.0.0");
        assertThat(open.contentType()).startsWith("application/openmetrics-text");
        assertThat(open.body()).contains("loomgate_requests_total{").endsWith("# EOF\n");
        assertThat(metrics.scrape("*/*").contentType()).isEqualTo("text/plain; version=0.0.4; charset=utf-8");
    }
}
