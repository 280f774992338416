package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.RawClient;
import io.loomgate.testkit.RunningGateway;
import io.loomgate.testkit.TestOrigin;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Routes match raw paths, so a dot-segment could reach a path no route allows once the origin resolves it
 * ({@code /public/../admin} → {@code /admin}). Such paths are refused before routing.
 */
class DotSegmentTest {
    private static final String YAML = "routes:\n  - id: public\n    uri: ${ORIGIN}\n"
            + "    predicates: [ \"Path=/public/**\" ]\n";

    @ParameterizedTest
    @ValueSource(strings = {"/public/../admin", "/public/%2e%2e/admin", "/public/%2E./admin", "/public/./x",
        "/public/..", "/public/.%2e?x=1"})
    void dotSegmentsAreRefused(String path) throws Exception {
        try (TestOrigin origin = new TestOrigin();
             RunningGateway gw = RunningGateway.start(YAML, Map.of("ORIGIN", origin.uri()));
             RawClient c = gw.raw()) {
            RawClient.Response r = c.send("GET " + path + " HTTP/1.1\r\nHost: h\r\n\r\n").read();
            assertThat(r.status()).isEqualTo(400);
            assertThat(r.bodyText()).contains("dot-segment");
            assertThat(origin.requestCount()).isZero();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"/public/.well-known/x", "/public/a..b", "/public/...", "/public/v1.2/%2e%2e.txt"})
    void dotsInsideNamesAreFine(String path) throws Exception {
        try (TestOrigin origin = new TestOrigin();
             RunningGateway gw = RunningGateway.start(YAML, Map.of("ORIGIN", origin.uri()));
             RawClient c = gw.raw()) {
            assertThat(c.send("GET " + path + " HTTP/1.1\r\nHost: h\r\n\r\n").read().status()).isEqualTo(200);
            assertThat(origin.takeRequest().target()).isEqualTo(path);
        }
    }
}
