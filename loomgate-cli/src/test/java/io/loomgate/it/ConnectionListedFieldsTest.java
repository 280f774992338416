package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.RawClient;
import io.loomgate.testkit.RunningGateway;
import io.loomgate.testkit.TestOrigin;
import io.loomgate.testkit.TestOrigin.Recorded;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A client may name fields in Connection to have them removed as hop-by-hop (RFC 9110 §7.6.1), but not Host or the
 * forwarding fields: removing those would change where the request goes ({@code preserve-host}) or erase the chain a
 * trusted proxy before us wrote.
 */
class ConnectionListedFieldsTest {

    @Test
    void connectionCannotRemoveHostOrXForwardedHost() throws Exception {
        try (TestOrigin origin = new TestOrigin(); RunningGateway gw = RunningGateway.to(origin);
             RawClient c = gw.raw()) {
            c.send("GET / HTTP/1.1\r\nHost: client.example\r\nConnection: Host, X-Forwarded-Host, X-Gone\r\n"
                    + "X-Gone: 1\r\n\r\n");
            assertThat(c.read().status()).isEqualTo(200);
            Recorded r = origin.takeRequest();
            assertThat(r.header("Host")).isEqualTo("client.example");
            assertThat(r.header("X-Forwarded-Host")).isEqualTo("client.example");
            assertThat(r.header("Forwarded")).contains("host=client.example");
            assertThat(r.header("X-Gone")).isNull();
        }
    }

    @Test
    void connectionCannotEraseATrustedProxysForwardingChain() throws Exception {
        String yaml = """
                server:
                  address: 127.0.0.1
                  port: 0
                  trusted-proxies: [ 127.0.0.1 ]
                admin:
                  port: 0
                routes:
                  - id: main
                    uri: ${ORIGIN}
                    predicates: [ "Path=/**" ]
                """;
        try (TestOrigin origin = new TestOrigin();
             RunningGateway gw = RunningGateway.start(yaml, Map.of("ORIGIN", origin.uri()));
             RawClient c = gw.raw()) {
            c.send("GET / HTTP/1.1\r\nHost: h\r\nX-Forwarded-For: 1.2.3.4\r\nForwarded: for=1.2.3.4\r\n"
                    + "X-Forwarded-Proto: https\r\nConnection: X-Forwarded-For, Forwarded, X-Forwarded-Proto\r\n\r\n");
            assertThat(c.read().status()).isEqualTo(200);
            Recorded r = origin.takeRequest();
            assertThat(r.header("X-Forwarded-For")).isEqualTo("1.2.3.4, 127.0.0.1");
            assertThat(r.header("Forwarded")).startsWith("for=1.2.3.4, for=127.0.0.1");
            assertThat(r.header("X-Forwarded-Proto")).isEqualTo("https");
        }
    }
}
