package io.loomgate.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** The CircuitBreaker filter's arguments, each mistake refused with file, line and key (with this module present). */
class CircuitBreakerConfigErrorsTest {

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
    void circuitBreakerArgumentsAreCheckedAtLoad() {
        assertThat(refusal(route("uri: http://a:8080", "filters:", "  - name: CircuitBreaker",
                "    args: { name: cb, fallbackUri: /fallback }")))
                .startsWith("gateway.yaml:6: route 'users': filter 'CircuitBreaker': fallbackUri: expected "
                        + "forward:/path");
        assertThat(refusal(route("uri: http://a:8080", "filters: [ \"CircuitBreaker\" ]")))
                .contains("filter 'CircuitBreaker': name: expected a breaker name");
        assertThat(refusal(route("uri: http://a:8080", "filters:", "  - name: CircuitBreaker",
                "    args: { name: cb, failure-rate-threshold: 0 }")))
                .contains("failure-rate-threshold: expected a whole number from 1 to 100, got '0'");
        assertThat(refusal(route("uri: http://a:8080", "filters:", "  - name: CircuitBreaker",
                "    args: { name: cb, wait-in-open: soon }")))
                .contains("wait-in-open: expected a duration like 500ms, 2s, 1m or 1h, got 'soon'");
    }
}
