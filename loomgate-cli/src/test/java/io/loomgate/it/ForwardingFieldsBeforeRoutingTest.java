package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.RawClient;
import io.loomgate.testkit.RunningGateway;
import io.loomgate.testkit.TestOrigin;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Issue 35 item 5: route predicates see the forwarding fields the gateway owns as it will send them, never the
 * client's own copies. As Envoy does, they are cleaned before the route is chosen: a client without a certificate
 * cannot match {@code Header=X-Forwarded-Client-Cert}, a plain-HTTP request cannot match
 * {@code X-Forwarded-Proto: https}, and an untrusted peer's X-Forwarded-For is its own address by the time routes look.
 * (HTTP/2: {@code io.loomgate.http2.Http2ForwardingFieldsBeforeRoutingTest}.)
 */
class ForwardingFieldsBeforeRoutingTest {

    static String yaml(String trusted, String predicate) {
        return "server:\n  address: 127.0.0.1\n  port: 0\n" + trusted + "admin:\n  port: 0\nroutes:\n"
                + "  - id: guarded\n    uri: ${ORIGIN}\n    predicates: [ \"Path=/**\", '" + predicate + "' ]\n";
    }

    private static int status(String predicate, String trusted, String fields) throws Exception {
        try (TestOrigin origin = new TestOrigin();
             RunningGateway gw = RunningGateway.start(yaml(trusted, predicate), Map.of("ORIGIN", origin.uri()));
             RawClient c = gw.raw()) {
            int status = c.send("GET /x HTTP/1.1\r\nHost: app.test\r\n" + fields + "\r\n").read().status();
            assertThat(origin.requestCount()).isEqualTo(status == 200 ? 1 : 0);
            return status;
        }
    }

    @Test
    void aClientWithoutACertificateCannotMatchOnTheClientCertField() throws Exception {
        assertThat(status("Header=X-Forwarded-Client-Cert", "",
                "X-Forwarded-Client-Cert: Hash=00;Subject=\"CN=admin\"\r\n")).isEqualTo(404);
    }

    @Test
    void aTrustedProxyCannotPassOnAClientCertFieldEither() throws Exception {
        // The gateway's own verification is the only source (docs/security.md), whoever the peer is.
        assertThat(status("Header=X-Forwarded-Client-Cert", "  trusted-proxies: [ \"127.0.0.0/8\" ]\n",
                "X-Forwarded-Client-Cert: Hash=00;Subject=\"CN=admin\"\r\n")).isEqualTo(404);
    }

    @Test
    void plainHttpCannotMatchProtoHttps() throws Exception {
        assertThat(status("Header=X-Forwarded-Proto, https", "", "X-Forwarded-Proto: https\r\n")).isEqualTo(404);
        assertThat(status("Header=X-Forwarded-Proto, http", "", "X-Forwarded-Proto: https\r\n"))
                .as("what the gateway sends (http) is what the predicate sees").isEqualTo(200);
    }

    @Test
    void anUntrustedPeersForwardedForIsReplacedBeforeMatching() throws Exception {
        assertThat(status("Header=X-Forwarded-For, 10\\..*", "", "X-Forwarded-For: 10.1.2.3\r\n")).isEqualTo(404);
        assertThat(status("Header=X-Forwarded-For, 127\\.0\\.0\\.1", "", "X-Forwarded-For: 10.1.2.3\r\n"))
                .isEqualTo(200);
    }

    @Test
    void aTrustedProxysForwardedForStillMatches() throws Exception {
        assertThat(status("Header=X-Forwarded-For, 10\\..*", "  trusted-proxies: [ \"127.0.0.0/8\" ]\n",
                "X-Forwarded-For: 10.1.2.3\r\n")).isEqualTo(200);
    }

    @Test
    void aStrippedFieldCannotBeMatchedEither() throws Exception {
        assertThat(status("Header=X-Original-URL", "", "X-Original-URL: /admin\r\n")).isEqualTo(404);
    }
}
