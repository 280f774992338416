package io.loomgate.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.proxy.BoundRoutes;
import io.loomgate.upstream.Balancing;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The upstream resilience keys: what they build, and each mistake refused with file, line and key. */
class BalancingConfigErrorsTest {

    private static String route(String... lines) {
        StringBuilder sb = new StringBuilder("routes:\n  - id: users\n");
        for (String l : lines) {
            sb.append("    ").append(l).append('\n');
        }
        return sb.toString();
    }

    private static String refusal(String yaml) {
        try {
            GatewayAssembly.build(ConfigLoader.parse(yaml, "gateway.yaml", Map.of()));
        } catch (ConfigException e) {
            return e.getMessage();
        }
        throw new AssertionError("accepted:\n" + yaml);
    }

    @Test
    void weightsHealthChecksAndOutliersAreRead() throws Exception {
        GatewayConfig c = ConfigLoader.parse(route("uris:", "  - http://a:8080;weight=3", "  - { uri: http://b:8080, weight: 2 }",
                "  - http://c:8080", "load-balancer: hash", "hash: { key: header:X-User }",
                "health-check: { path: /ready, interval: 5s, expected-statuses: 200-299 }",
                "outlier-detection: { consecutive-failures: 7 }"), "gateway.yaml", Map.of());
        Balancing b = c.routes().get(0).balancing();
        assertThat(b.weights()).containsExactly(3, 2, 1);
        assertThat(b.policy()).isEqualTo(Balancing.Policy.HASH);
        assertThat(b.hashKey()).isEqualTo("header:X-User");
        assertThat(b.healthCheck().path()).isEqualTo("/ready");
        assertThat(b.healthCheck().maxStatus()).isEqualTo(299);
        assertThat(b.healthCheck().timeout()).isEqualTo(Balancing.HealthCheck.DEFAULTS.timeout());
        assertThat(b.outliers().consecutiveFailures()).isEqualTo(7);
        assertThat(b.outliers().maxEjectionPercent()).isEqualTo(50);
    }

    @Test
    void grpcHealthChecksAreReadAndNeedHttp2() throws Exception {
        Balancing.HealthCheck all = ConfigLoader.parse(route("uri: h2c://a:50051", "health-check: { grpc: true }"),
                "gateway.yaml", Map.of()).routes().get(0).balancing().healthCheck();
        assertThat(all.grpc()).isTrue();
        assertThat(all.grpcService()).isEmpty();
        Balancing.HealthCheck one = ConfigLoader.parse(route("uri: h2c://a:50051",
                "health-check: { grpc: true, grpc-service: shop.Cart }"), "gateway.yaml", Map.of()).routes().get(0)
                .balancing().healthCheck();
        assertThat(one.grpcService()).isEqualTo("shop.Cart");
        assertThat(ConfigLoader.parse(route("uri: h2c://a:50051", "health-check: { path: /ready }"),
                "gateway.yaml", Map.of()).routes().get(0).balancing().healthCheck().grpc()).isFalse();
        assertThat(refusal(route("uri: h2c://a:50051", "health-check: { grpc: false, grpc-service: shop.Cart }")))
                .startsWith("gateway.yaml:4: route 'users' health-check: grpc-service: is for gRPC health checks");
        assertThat(refusal(route("uri: http://a:8080", "health-check: { grpc: true }")))
                .startsWith("gateway.yaml:4: route 'users': health-check: a gRPC health check needs HTTP/2");
    }

    @Test
    void leastRequestIsTheDefault() throws Exception {
        GatewayConfig c = ConfigLoader.parse(route("uri: http://a:8080"), "gateway.yaml", Map.of());
        assertThat(c.routes().get(0).balancing().policy()).isEqualTo(Balancing.Policy.LEAST_REQUEST);
    }

    @Test
    void eachMistakeNamesItsLineAndKey() {
        assertThat(refusal(route("uri: http://a:8080", "load-balancer: least-requests")))
                .startsWith("gateway.yaml:4: route 'users': load-balancer: expected one of least-request, "
                        + "round-robin, random, hash, got 'least-requests'");
        assertThat(refusal(route("uri: http://a:8080", "load-balancer: hash")))
                .startsWith("gateway.yaml:4: route 'users': load-balancer: load-balancer: hash needs hash:");
        assertThat(refusal(route("uri: http://a:8080", "hash: { key: header:X }")))
                .startsWith("gateway.yaml:4: route 'users': hash: a hash key needs load-balancer: hash");
        assertThat(refusal(route("uri: http://a:8080", "load-balancer: hash", "hash: { key: body }")))
                .contains("hash key: expected header:NAME, cookie:NAME or client-ip, got 'body'");
        assertThat(refusal(route("uris: [ \"http://a:8080;weight=0\" ]")))
                .startsWith("gateway.yaml:3: route 'users': uris[0]: expected ';weight=N' with N from 1 to 1000");
        assertThat(refusal(route("uri: http://a:8080", "health-check: { path: health }")))
                .startsWith("gateway.yaml:4: route 'users' health-check: path: must start with '/'");
        assertThat(refusal(route("uri: http://a:8080", "health-check: { expected-statuses: 200-99 }")))
                .contains("expected-statuses: expected a status or a range like 200-399");
        assertThat(refusal(route("uri: http://a:8080", "health-check: { intervall: 2s }")))
                .contains("unknown key 'intervall' — did you mean 'interval'?");
        assertThat(refusal(route("uri: http://a:8080", "outlier-detection: { max-ejection-percent: 150 }")))
                .startsWith("gateway.yaml:4:").contains("max-ejection-percent");
    }

    @Test
    void retryArgumentsAreCheckedAtLoad() {
        assertThat(refusal(route("uri: http://a:8080", "filters:", "  - name: Retry",
                "    args: { retries: 3, statuses: BAD_GATEWY }")))
                .startsWith("gateway.yaml:6: route 'users': filter 'Retry': statuses: expected a status code");
        assertThat(refusal(route("uri: http://a:8080", "filters:", "  - name: Retry",
                "    args: { exceptions: NullPointerException }")))
                .contains("exceptions: expected IOException and/or TimeoutException");
        assertThat(refusal(route("uri: http://a:8080", "filters:", "  - name: Retry",
                "    args: { backoff: { firstBackoff: 10ms, maxBackof: 50ms } }")))
                .contains("filter 'Retry'").contains("maxBackof");
        assertThat(refusal(route("uri: http://a:8080", "filters: [ \"Retry=3\", \"Retry=2\" ]")))
                .contains("more than one Retry filter");
    }

    @Test
    void theRetryFilterIsBoundToItsRoute() throws Exception {
        GatewayAssembly a = GatewayAssembly.build(ConfigLoader.parse(route("uri: http://a:8080",
                "filters:", "  - name: Retry", "    args: { retries: 5, backoff: { firstBackoff: 10ms, factor: 3 } }"),
                "gateway.yaml", Map.of()));
        assertThat(a.routes().routes().get(0).filters()).as("a policy, not a link of the chain").isEmpty();
        assertThat(a.routes().routes().get(0).policies().retry().toString()).contains("retries=5")
                .contains("first=PT0.01S").contains("factor=3");
    }

    @Test
    void dnsRefreshIsReadPerRouteAndZeroOrOffTurnsItOff() throws Exception {
        Duration[] got = new Duration[4];
        String[] written = {null, "dns-refresh: 5s", "dns-refresh: off", "dns-refresh: 0"};
        for (int i = 0; i < written.length; i++) {
            String yaml = written[i] == null ? route("uri: http://a:8080") : route("uri: http://a:8080", written[i]);
            GatewayAssembly a = GatewayAssembly.build(ConfigLoader.parse(yaml, "gateway.yaml", Map.of()));
            got[i] = a.upstreams().get(0).dnsRefresh();
        }
        assertThat(got).containsExactly(Duration.ofSeconds(30), Duration.ofSeconds(5), Duration.ZERO, Duration.ZERO);
        assertThat(refusal(route("uri: http://a:8080", "dns-refresh: often")))
                .startsWith("gateway.yaml:4: route 'users': dns-refresh: ");
    }

    @Test
    void sharedFiltersLeaveARoutesBalancingAndDnsRefreshAlone() throws Exception {
        GatewayConfig c = ConfigLoader.parse("default-filters: [ \"AddResponseHeader=X-A, 1\" ]\n"
                + route("uri: http://a:8080", "load-balancer: round-robin", "dns-refresh: 2s"), "gateway.yaml",
                Map.of());
        assertThat(c.routes().get(0).balancing().policy()).isEqualTo(Balancing.Policy.ROUND_ROBIN);
        assertThat(c.routes().get(0).dnsRefresh()).isEqualTo(Duration.ofSeconds(2));
    }
}
