package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.RawClient;
import io.loomgate.testkit.RunningGateway;
import io.loomgate.testkit.TestOrigin;
import io.loomgate.testkit.TestOrigin.Recorded;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * CGI, WSGI and PHP turn {@code X-Forwarded-For} and {@code X_Forwarded_For} into the same variable, so a field
 * with an underscore in its name could shadow one the gateway set. Such fields are dropped unless
 * {@code server.underscores-in-headers: true} (nginx's underscores_in_headers).
 */
class UnderscoreHeaderNamesTest {
    private static final String REQUEST = "GET / HTTP/1.1\r\nHost: h\r\nX_Forwarded_For: 6.6.6.6\r\n"
            + "X_Custom: 1\r\nX-Plain: 2\r\n\r\n";

    @Test
    void fieldsWithUnderscoresDoNotReachTheOrigin() throws Exception {
        try (TestOrigin origin = new TestOrigin(); RunningGateway gw = RunningGateway.to(origin);
             RawClient c = gw.raw()) {
            assertThat(c.send(REQUEST).read().status()).isEqualTo(200);
            Recorded r = origin.takeRequest();
            assertThat(r.headers()).noneSatisfy(h -> assertThat(h[0]).contains("_"));
            assertThat(r.header("X-Forwarded-For")).isEqualTo("127.0.0.1");
            assertThat(r.header("X-Plain")).isEqualTo("2");
        }
    }

    @Test
    void aServerKeyLetsThemThrough() throws Exception {
        String yaml = """
                server:
                  address: 127.0.0.1
                  port: 0
                  underscores-in-headers: true
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
            assertThat(c.send(REQUEST).read().status()).isEqualTo(200);
            Recorded r = origin.takeRequest();
            assertThat(r.header("X_Custom")).isEqualTo("1");
            assertThat(r.header("X_Forwarded_For")).isEqualTo("6.6.6.6");
        }
    }
}
