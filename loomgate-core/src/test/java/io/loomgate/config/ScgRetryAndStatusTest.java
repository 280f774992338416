package io.loomgate.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.loomgate.extension.StatusCodes;
import io.loomgate.resilience.PolicyRegistry;
import io.loomgate.resilience.RetryPolicy;
import io.loomgate.resilience.RoutePolicy;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Retry's shorthand in SCG's order, and statuses by any name of Spring's HttpStatus table (issue 37). */
class ScgRetryAndStatusTest {

    /** Binds a shorthand {@code Retry=...} as the configuration does, then builds the filter. */
    private static RetryPolicy shorthand(String values) {
        Map<String, String> written = new LinkedHashMap<>();
        String[] parts = values.split(",", -1);
        for (int i = 0; i < parts.length; i++) {
            written.put(ComponentBinder.POSITIONAL + i, parts[i].trim());
        }
        var factory = PolicyRegistry.withBuiltIns().find("Retry");
        return ((RoutePolicy.Retry) factory.create(ComponentBinder.bind(written, factory.argNames(), false))).retry()
                .policy();
    }

    @Test
    void retryShorthandFollowsScgsOrder() {
        // SCG's documented shortcut: retries, statuses, methods, firstBackoff, maxBackoff, factor, basedOnPreviousValue
        RetryPolicy p = shorthand("3,INTERNAL_SERVER_ERROR,GET,10ms,50ms,2,false");
        assertThat(p.retries()).isEqualTo(3);
        assertThat(p.statuses()).containsExactly(500);
        assertThat(p.methods()).containsExactly("GET");
        assertThat(p.backoff()).isEqualTo(new RetryPolicy.Backoff(Duration.ofMillis(10), Duration.ofMillis(50), 2,
                false));
        assertThat(shorthand("2").retries()).isEqualTo(2);
        assertThat(shorthand("1,BAD_GATEWAY,POST").methods()).isEqualTo(Set.of("POST"));
    }

    @Test
    void statusesTakeEveryNameOfSpringsTable() {
        assertThat(shorthand("1,I_AM_A_TEAPOT").statuses()).containsExactly(418);
        assertThat(shorthand("1,REQUEST_ENTITY_TOO_LARGE").statuses()).containsExactly(413);
        assertThat(shorthand("1,502").statuses()).containsExactly(502);
        assertThat(StatusCodes.parse("status", "moved_temporarily")).isEqualTo(302);
        assertThat(StatusCodes.parse("status", "UNPROCESSABLE_CONTENT")).isEqualTo(422);
        assertThat(StatusCodes.parse("status", "BANDWIDTH_LIMIT_EXCEEDED")).isEqualTo(509);
        assertThatThrownBy(() -> shorthand("1,NOT_A_STATUS"))
                .hasMessage("statuses: expected a status code 100..599 or a name like NOT_FOUND, got 'NOT_A_STATUS'");
    }
}
