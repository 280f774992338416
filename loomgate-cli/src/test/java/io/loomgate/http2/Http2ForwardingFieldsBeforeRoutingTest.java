package io.loomgate.http2;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.RunningGateway;
import io.loomgate.testkit.TestOrigin;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Issue 35 items 5 and 11 over HTTP/2: the forwarding fields a client sends are cleaned before routes are matched,
 * exactly as on HTTP/1.1 ({@code io.loomgate.it.ForwardingFieldsBeforeRoutingTest}).
 */
class Http2ForwardingFieldsBeforeRoutingTest {

    private static String status(String predicate, String... fields) throws Exception {
        String yaml = """
                server:
                  address: 127.0.0.1
                  port: 0
                  http2:
                    enabled: true
                admin:
                  port: 0
                routes:
                  - id: guarded
                    uri: ${ORIGIN}
                    predicates: [ "Path=/**", '%s' ]
                """.formatted(predicate);
        try (TestOrigin origin = new TestOrigin();
             RunningGateway gw = RunningGateway.start(yaml, Map.of("ORIGIN", origin.uri()));
             RawH2Client c = new RawH2Client(gw.port())) {
            c.headers(1, RawH2Client.request("GET", "/x", fields), true);
            String status = c.fields(c.await(f -> f.is(Frames.HEADERS, 1))).get(":status");
            assertThat(origin.requestCount()).isEqualTo(status.equals("200") ? 1 : 0);
            return status;
        }
    }

    @Test
    void theClientsForwardingFieldsAreNotWhatRoutesSee() throws Exception {
        assertThat(status("Header=X-Forwarded-Client-Cert", "x-forwarded-client-cert", "Hash=00;Subject=\"CN=a\""))
                .isEqualTo("404");
        assertThat(status("Header=X-Forwarded-Proto, https", "x-forwarded-proto", "https")).isEqualTo("404");
        assertThat(status("Header=X-Forwarded-For, 10\\..*", "x-forwarded-for", "10.1.2.3")).isEqualTo("404");
        assertThat(status("Header=X-Rewrite-URL", "x-rewrite-url", "/admin")).isEqualTo("404");
        assertThat(status("Header=X-Forwarded-Proto, http", "x-forwarded-proto", "https")).isEqualTo("200");
    }
}
