package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.RawClient;
import io.loomgate.testkit.RunningGateway;
import io.loomgate.testkit.TestOrigin;
import io.loomgate.testkit.TestOrigin.Recorded;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** X-Forwarded-* and Forwarded: appended for trusted proxies, replaced for everyone else. */
class ForwardedHeadersTest {
    private static final String SPOOF = "GET / HTTP/1.1\r\nHost: app.test\r\nX-Forwarded-For: 6.6.6.6\r\n"
            + "X-Forwarded-Proto: https\r\nX-Forwarded-Host: evil.test\r\nForwarded: for=6.6.6.6\r\n\r\n";

    @Test
    void anUntrustedClientsForwardingFieldsAreReplaced() throws Exception {
        try (TestOrigin origin = new TestOrigin(); RunningGateway gw = RunningGateway.to(origin);
             RawClient c = gw.raw()) {
            c.send(SPOOF).read();
            Recorded r = origin.takeRequest();
            assertThat(r.header("X-Forwarded-For")).isEqualTo("127.0.0.1");
            assertThat(r.header("X-Forwarded-Proto")).isEqualTo("http");
            assertThat(r.header("X-Forwarded-Host")).isEqualTo("app.test");
            assertThat(r.header("X-Forwarded-Port")).isEqualTo(Integer.toString(gw.port()));
            assertThat(r.header("Forwarded")).isEqualTo("for=127.0.0.1;proto=http;host=app.test");
        }
    }

    @Test
    void aTrustedProxysForwardingFieldsAreAppendedTo() throws Exception {
        String yaml = "server:\n  address: 127.0.0.1\n  port: 0\n  trusted-proxies: [ \"127.0.0.0/8\" ]\n"
                + "admin:\n  port: 0\nroutes:\n  - id: main\n    uri: ${ORIGIN}\n    predicates: [ \"Path=/**\" ]\n";
        try (TestOrigin origin = new TestOrigin();
             RunningGateway gw = RunningGateway.start(yaml, Map.of("ORIGIN", origin.uri()));
             RawClient c = gw.raw()) {
            c.send(SPOOF).read();
            Recorded r = origin.takeRequest();
            assertThat(r.header("X-Forwarded-For")).isEqualTo("6.6.6.6, 127.0.0.1");
            assertThat(r.header("X-Forwarded-Proto")).isEqualTo("https");
            assertThat(r.header("X-Forwarded-Host")).isEqualTo("evil.test");
            assertThat(r.header("Forwarded")).isEqualTo("for=6.6.6.6, for=127.0.0.1;proto=http;host=app.test");
        }
    }
}
