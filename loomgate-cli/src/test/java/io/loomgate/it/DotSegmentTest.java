package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.RawClient;
import io.loomgate.testkit.RunningGateway;
import io.loomgate.testkit.TestOrigin;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
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

    /**
     * An encoded slash or a backslash beside a dot ends a segment for origins that decode the path or read a
     * backslash as '/', so {@code /public/..%2Fadmin} is refused as {@code /public/../admin} is. And a path filter can
     * make a dot-segment out of a path the screen passed ({@code /ver/..-v1/admin} → {@code /ver/../admin}), which the
     * origin would resolve to a path whose route has filters this request never passed.
     */
    @Test
    void aDotSegmentBesideAnEncodedSlashOrMadeByAPathFilterIsRefused() throws Exception {
        String yaml = YAML
                + "  - id: ver\n    uri: ${ORIGIN}\n    predicates: [ \"Path=/ver/**\" ]\n"
                + "    filters: [ \"RewritePath=-v1(/|$), $1\" ]\n"
                + "  - id: spx\n    uri: ${ORIGIN}\n    predicates: [ \"Path=/spx/v{v}/**\" ]\n"
                + "    filters: [ \"SetPath=/api/{v}/x\" ]\n";
        try (TestOrigin origin = new TestOrigin();
             RunningGateway gw = RunningGateway.start(yaml, Map.of("ORIGIN", origin.uri()))) {
            for (String path : List.of("/public/..%2Fadmin", "/public/%2e%2e%2fadmin", "/public/..%5Cadmin",
                    "/ver/..-v1/admin", "/ver/x/.-v1", "/spx/v../x", "/spx/v%2e%2e/x")) {
                try (RawClient c = gw.raw()) { // a 400 closes the connection
                    RawClient.Response r = c.send("GET " + path + " HTTP/1.1\r\nHost: h\r\n\r\n").read();
                    assertThat(r.status()).as(path).isEqualTo(400);
                    assertThat(r.bodyText()).as(path).contains("dot-segment");
                }
            }
            assertThat(origin.requestCount()).isZero();
            // the same filters with no dot-segment made: through, as rewritten
            try (RawClient c = gw.raw()) {
                assertThat(c.send("GET /ver/a-v1/b HTTP/1.1\r\nHost: h\r\n\r\n").read().status()).isEqualTo(200);
                assertThat(origin.takeRequest().target()).isEqualTo("/ver/a/b");
            }
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
