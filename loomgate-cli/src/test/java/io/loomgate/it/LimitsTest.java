package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.RawClient;
import io.loomgate.testkit.RunningGateway;
import io.loomgate.testkit.TestOrigin;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Heads over the limits are refused with the status RFC 9110 and RFC 6585 name, never truncated. */
class LimitsTest {

    @Test
    void aRequestLineOver8KiBGets414() throws Exception {
        try (TestOrigin origin = new TestOrigin(); RunningGateway gw = RunningGateway.to(origin);
             RawClient c = gw.raw()) {
            RawClient.Response r = c.send("GET /" + "a".repeat(9000) + " HTTP/1.1\r\nHost: h\r\n\r\n").read();
            assertThat(r.status()).isEqualTo(414);
            assertThat(origin.requestCount()).isZero();
        }
    }

    @Test
    void moreThan100FieldsGets431() throws Exception {
        try (TestOrigin origin = new TestOrigin(); RunningGateway gw = RunningGateway.to(origin);
             RawClient c = gw.raw()) {
            StringBuilder req = new StringBuilder("GET / HTTP/1.1\r\nHost: h\r\n");
            for (int i = 0; i < 101; i++) {
                req.append("X-F").append(i).append(": v\r\n");
            }
            assertThat(c.send(req.append("\r\n").toString()).read().status()).isEqualTo(431);
        }
    }

    @Test
    void aHeaderSectionOver64KiBGets431() throws Exception {
        try (TestOrigin origin = new TestOrigin(); RunningGateway gw = RunningGateway.to(origin);
             RawClient c = gw.raw()) {
            String big = "x".repeat(7000);
            StringBuilder req = new StringBuilder("GET / HTTP/1.1\r\nHost: h\r\n");
            for (int i = 0; i < 10; i++) {
                req.append("X-Big").append(i).append(": ").append(big).append("\r\n");
            }
            assertThat(c.send(req.append("\r\n").toString()).read().status()).isEqualTo(431);
        }
    }

    @Test
    void theLimitsAreConfigurable() throws Exception {
        String yaml = "server:\n  address: 127.0.0.1\n  port: 0\n  max-request-line: 100\n  max-headers: 3\n"
                + "admin:\n  port: 0\nroutes:\n  - id: main\n    uri: ${ORIGIN}\n    predicates: [ \"Path=/**\" ]\n";
        try (TestOrigin origin = new TestOrigin();
             RunningGateway gw = RunningGateway.start(yaml, Map.of("ORIGIN", origin.uri()))) {
            try (RawClient c = gw.raw()) {
                assertThat(c.send("GET /" + "a".repeat(120) + " HTTP/1.1\r\nHost: h\r\n\r\n").read().status())
                        .isEqualTo(414);
            }
            try (RawClient c = gw.raw()) {
                assertThat(c.send("GET / HTTP/1.1\r\nHost: h\r\nA: 1\r\nB: 2\r\nC: 3\r\n\r\n").read().status())
                        .isEqualTo(431);
            }
            try (RawClient c = gw.raw()) {
                assertThat(c.send("GET / HTTP/1.1\r\nHost: h\r\nA: 1\r\n\r\n").read().status()).isEqualTo(200);
            }
        }
    }
}
