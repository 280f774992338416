package io.loomgate.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.resilience.RetryPolicy;
import io.loomgate.route.Route;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * One value grammar across every filter and policy (issue 36 step 5): what one filter reads, every filter reads the
 * same way ({@code 1d} works for Retry as for JwtAuth), and a bad value is refused naming the file, the line the
 * argument was written on, the route and the argument.
 */
class ValueGrammarConfigTest {

    private static String refusal(String yaml) {
        try {
            GatewayAssembly.build(ConfigLoader.parse(yaml, "gateway.yaml", Map.of()));
        } catch (ConfigException e) {
            return e.getMessage();
        }
        throw new AssertionError("accepted:\n" + yaml);
    }

    private static Route route(String yaml) throws Exception {
        return GatewayAssembly.build(ConfigLoader.parse(yaml, "gateway.yaml", Map.of())).routes().routes().get(0);
    }

    /** A route 'api' whose one filter is written expanded from line 5, its arguments one per line from line 7. */
    private static String filter(String name, String... args) {
        StringBuilder b = new StringBuilder("routes:\n  - id: api\n    uri: http://127.0.0.1:8082\n    filters:\n"
                + "      - name: " + name + "\n        args:\n");
        for (String a : args) {
            b.append("          ").append(a).append('\n');
        }
        return b.toString();
    }

    @Test
    void daysIsoAndSizesWorkForEveryFilterAndPolicy() throws Exception {
        RetryPolicy retry = route(filter("Retry", "retries: 2", "per-try-timeout: 1d", "max-replay-size: 1MB",
                "timeout: PT2S", "backoff:", "  firstBackoff: 1s", "  maxBackoff: 1d")).policies().retry().policy();
        assertThat(retry.perTryTimeout()).isEqualTo(Duration.ofDays(1));
        assertThat(retry.timeout()).isEqualTo(Duration.ofSeconds(2));
        assertThat(retry.maxReplaySize()).isEqualTo(1024 * 1024);
        assertThat(retry.backoff().max()).isEqualTo(Duration.ofDays(1));
        assertThat(route(filter("CircuitBreaker", "name: cb", "wait-in-open: 1d", "slow-call-threshold: 250us"))
                .policies().breaker()).isNotNull();
        assertThat(route(filter("JwtAuth", "secret: " + "s".repeat(32), "jwks-refresh: 1d", "clock-skew: 1m"))
                .filters()).hasSize(1);
        assertThat(route(filter("Cors", "allowed-origins: https://a.example", "max-age: 1d")).filters()).hasSize(1);
        assertThat(route(filter("RequestSize", "maxSize: 5mb")).filters()).hasSize(1);
    }

    @Test
    void aBadValueIsRefusedOnTheLineItWasWrittenNamingRouteFilterAndArgument() {
        assertThat(refusal(filter("Retry", "retries: 2", "timeout: soon"))).isEqualTo("gateway.yaml:8: route 'api': "
                + "filter 'Retry': timeout: expected a duration like 500ms, 2s, 1m or 1h, got 'soon'");
        assertThat(refusal(filter("Retry", "statuses: [ 500, NOT_A_STATUS ]"))).isEqualTo("gateway.yaml:7: route "
                + "'api': filter 'Retry': statuses: expected a status code 100..599 or a name like NOT_FOUND, got "
                + "'NOT_A_STATUS'");
        assertThat(refusal(filter("Retry", "retries: 2", "series: SERVER_ERRORS"))).startsWith("gateway.yaml:8: route "
                + "'api': filter 'Retry': series: expected a status series");
        assertThat(refusal(filter("Retry", "retries: 2", "jitter:", "  randomFactor: 2"))).isEqualTo("gateway.yaml:9: "
                + "route 'api': filter 'Retry': jitter.randomFactor: expected a number from 0.0 to 1.0, got '2'");
        assertThat(refusal(filter("Retry", "retries: 2", "max-replay-size: lots"))).isEqualTo("gateway.yaml:8: route "
                + "'api': filter 'Retry': max-replay-size: expected a size like 5MB, 512KB or 1024 (bytes), got 'lots'");
        assertThat(refusal(filter("CircuitBreaker", "name: cb", "statusCodes: [ 500, SERVER_ERROR ]")))
                .isEqualTo("gateway.yaml:8: route 'api': filter 'CircuitBreaker': statusCodes: expected a status code "
                        + "100..599 or a name like NOT_FOUND, got 'SERVER_ERROR' (SERVER_ERROR is a series of "
                        + "statuses: write it under series)");
        assertThat(refusal(filter("CircuitBreaker", "name: cb", "resumeWithoutError: sometimes")))
                .isEqualTo("gateway.yaml:8: route 'api': filter 'CircuitBreaker': resumeWithoutError: expected true "
                        + "or false, got 'sometimes'");
        assertThat(refusal(filter("JwtAuth", "secret: " + "s".repeat(32), "clock-skew: 10")))
                .isEqualTo("gateway.yaml:8: route 'api': filter 'JwtAuth': clock-skew: a duration needs a unit (us, "
                        + "ms, s, m, h or d), like 2s or 500ms; got '10'");
        assertThat(refusal(filter("RequestSize", "maxSize: 5 parsecs"))).isEqualTo("gateway.yaml:7: route 'api': "
                + "filter 'RequestSize': maxSize: expected a size like 5MB, 512KB or 1024 (bytes), got '5 parsecs'");
        assertThat(refusal(filter("FallbackHeaders", "executionExceptionTypeHeaderName: Bad Header")))
                .isEqualTo("gateway.yaml:7: route 'api': filter 'FallbackHeaders': executionExceptionTypeHeaderName: "
                        + "'Bad Header' is not a valid header name (RFC 9110 token)");
        assertThat(refusal(filter("ApiKeyAuth", "keys:", "  alice: 'sha256:" + "ab".repeat(32) + "'",
                "principal-header: X User"))).isEqualTo("gateway.yaml:9: route 'api': filter 'ApiKeyAuth': "
                + "principal-header: 'X User' is not a valid header name (RFC 9110 token)");
    }

    @Test
    void aRouteHasOneRetryAndOneBreakerBoundToItNotLinksOfItsChain() throws Exception {
        String two = "routes:\n  - id: api\n    uri: http://127.0.0.1:8082\n    filters:\n      - Retry=2\n"
                + "      - CircuitBreaker=cb\n      - Retry=3\n";
        assertThat(refusal(two)).isEqualTo("gateway.yaml:7: route 'api': has more than one Retry filter; a route "
                + "retries by one policy");
        Route r = route("routes:\n  - id: api\n    uri: http://127.0.0.1:8082\n    filters:\n      - Retry=2\n"
                + "      - CircuitBreaker=cb\n      - AddRequestHeader=X-A, 1\n");
        assertThat(r.filters()).hasSize(1);
        assertThat(r.policies().retry().policy().retries()).isEqualTo(2);
        assertThat(r.policies().breaker().toString()).startsWith("CircuitBreaker[cb, CLOSED");
        assertThat(refusal("routes:\n  - id: api\n    uri: http://127.0.0.1:8082\n    filters:\n      - Retyr=2\n"))
                .isEqualTo("gateway.yaml:5: route 'api': unknown filter 'Retyr' — did you mean 'Retry'?");
    }
}
