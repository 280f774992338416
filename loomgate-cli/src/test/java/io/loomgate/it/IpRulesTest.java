package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.RawClient;
import io.loomgate.testkit.RunningGateway;
import io.loomgate.testkit.TestOrigin;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * IpFilter and the RemoteAddr predicate judge the client's address: X-Forwarded-For counts only when the peer (here
 * always 127.0.0.1) is in server.trusted-proxies, walked from the right past every trusted hop.
 */
class IpRulesTest {
    private static final String ROUTES = """
            routes:
              - id: office
                uri: ${ORIGIN}
                predicates: [ "Path=/office/**", "RemoteAddr=203.0.113.0/24" ]
                filters: [ "SetResponseHeader=X-Route,office" ]
              - id: admin
                uri: ${ORIGIN}
                predicates: [ "Path=/admin/**" ]
                filters:
                  - name: IpFilter
                    args: { allow: [ 203.0.113.0/24, "2001:db8::/32" ], deny: [ 203.0.113.66 ] }
              - id: rest
                uri: ${ORIGIN}
                predicates: [ "Path=/**" ]
                filters: [ "SetResponseHeader=X-Route,rest" ]
            """;

    private static RunningGateway gateway(TestOrigin origin, String trusted) throws Exception {
        return RunningGateway.start("server:\n  address: 127.0.0.1\n  port: 0\n  trusted-proxies: " + trusted
                + "\nadmin:\n  port: 0\n" + ROUTES, Map.of("ORIGIN", origin.uri()));
    }

    private static RawClient.Response get(RunningGateway gw, String path, String xff) throws Exception {
        try (RawClient c = gw.raw()) {
            return c.send("GET " + path + " HTTP/1.1\r\nHost: gw\r\n" + (xff == null ? ""
                    : "X-Forwarded-For: " + xff + "\r\n") + "Connection: close\r\n\r\n").read();
        }
    }

    @Test
    void behindATrustedProxyTheForwardedClientIsJudged() throws Exception {
        try (TestOrigin origin = new TestOrigin();
             RunningGateway gw = gateway(origin, "[ 127.0.0.0/8, 10.0.0.0/8 ]")) {
            assertThat(get(gw, "/admin/x", "203.0.113.7").status()).isEqualTo(200);
            assertThat(get(gw, "/admin/x", "198.51.100.1, 203.0.113.7, 10.1.2.3").status()).isEqualTo(200);
            assertThat(get(gw, "/admin/x", "2001:db8::7").status()).isEqualTo(200);
            assertThat(get(gw, "/admin/x", "198.51.100.1").status()).isEqualTo(403);
            assertThat(get(gw, "/admin/x", "203.0.113.7, 198.51.100.1").status()).isEqualTo(403); // nearest wins
            RawClient.Response denied = get(gw, "/admin/x", "203.0.113.66");
            assertThat(denied.status()).isEqualTo(403);
            assertThat(denied.bodyText()).contains("the client address is denied");
            RawClient.Response unknown = get(gw, "/admin/x", "unknown");
            assertThat(unknown.status()).isEqualTo(403);
            assertThat(unknown.bodyText()).contains("cannot be determined");
            assertThat(get(gw, "/admin/x", null).status()).isEqualTo(403); // the proxy itself is not allowed

            assertThat(get(gw, "/office/a", "203.0.113.9").header("X-Route")).isEqualTo("office");
            assertThat(get(gw, "/office/a", "198.51.100.1").header("X-Route")).isEqualTo("rest");
            assertThat(origin.received().stream().filter(r -> r.target().startsWith("/admin")).count())
                    .isEqualTo(3);
        }
    }

    @Test
    void fromAnUntrustedPeerTheForwardedHeaderIsIgnored() throws Exception {
        try (TestOrigin origin = new TestOrigin(); RunningGateway gw = gateway(origin, "[]")) {
            assertThat(get(gw, "/admin/x", "203.0.113.7").status()).isEqualTo(403);
            assertThat(get(gw, "/office/a", "203.0.113.9").header("X-Route")).isEqualTo("rest");
            assertThat(origin.received().stream().noneMatch(r -> r.target().startsWith("/admin"))).isTrue();
        }
    }
}
