package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.loomgate.config.ConfigException;
import io.loomgate.config.ConfigLoader;
import io.loomgate.testkit.RawClient;
import io.loomgate.testkit.RunningGateway;
import io.loomgate.testkit.TestOrigin;
import io.loomgate.testkit.TestOrigin.Recorded;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Issue 35 item 11: fields origins and frameworks read as the proxy's word (X-Real-IP, Spring's X-Forwarded-Prefix,
 * X-Original-URL, X-Rewrite-URL, X-Envoy-*) do not pass from a client; {@code server.strip-request-headers} lists
 * them, prefixes with '*', and a trusted proxy's pass, as its X-Forwarded-For does.
 */
class StrippedRequestHeadersTest {
    private static final String CLAIMS = "GET / HTTP/1.1\r\nHost: app.test\r\nX-Real-IP: 6.6.6.6\r\n"
            + "X-Forwarded-Prefix: /evil\r\nX-Original-URL: /admin\r\nX-Rewrite-URL: /admin\r\n"
            + "X-Envoy-Original-Path: /admin\r\nx-envoy-internal: true\r\nX-Corp-Role: admin\r\nX-Kept: yes\r\n\r\n";

    private static Recorded relay(String serverExtra) throws Exception {
        String yaml = "server:\n  address: 127.0.0.1\n  port: 0\n" + serverExtra + "admin:\n  port: 0\n"
                + "routes:\n  - id: main\n    uri: ${ORIGIN}\n    predicates: [ \"Path=/**\" ]\n";
        try (TestOrigin origin = new TestOrigin();
             RunningGateway gw = RunningGateway.start(yaml, Map.of("ORIGIN", origin.uri()));
             RawClient c = gw.raw()) {
            assertThat(c.send(CLAIMS).read().status()).isEqualTo(200);
            return origin.takeRequest();
        }
    }

    @Test
    void aClientsProxyFieldsAreStrippedByDefault() throws Exception {
        Recorded r = relay("");
        assertThat(r.header("X-Real-IP")).isNull();
        assertThat(r.header("X-Forwarded-Prefix")).isNull();
        assertThat(r.header("X-Original-URL")).isNull();
        assertThat(r.header("X-Rewrite-URL")).isNull();
        assertThat(r.header("X-Envoy-Original-Path")).isNull();
        assertThat(r.header("X-Envoy-Internal")).isNull();
        assertThat(r.header("X-Corp-Role")).isEqualTo("admin");
        assertThat(r.header("X-Kept")).isEqualTo("yes");
    }

    @Test
    void aTrustedProxysPass() throws Exception {
        Recorded r = relay("  trusted-proxies: [ \"127.0.0.0/8\" ]\n");
        assertThat(r.header("X-Real-IP")).isEqualTo("6.6.6.6");
        assertThat(r.header("X-Forwarded-Prefix")).isEqualTo("/evil");
        assertThat(r.header("X-Envoy-Original-Path")).isEqualTo("/admin");
    }

    @Test
    void theListIsConfigurableWithPrefixes() throws Exception {
        Recorded r = relay("  strip-request-headers: [ \"X-Corp-*\", \"X-Real-IP\" ]\n");
        assertThat(r.header("X-Corp-Role")).isNull();
        assertThat(r.header("X-Real-IP")).isNull();
        assertThat(r.header("X-Original-URL")).as("the list replaces the defaults").isEqualTo("/admin");
    }

    @Test
    void anEntryThatIsNotAFieldNameIsAConfigErrorNamingIt() {
        String yaml = "server:\n  port: 0\n  strip-request-headers: [ \"X-Ok\", \"X Bad*\" ]\n";
        assertThatThrownBy(() -> ConfigLoader.parse(yaml, "gw.yaml", Map.of()))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("gw.yaml:3")
                .hasMessageContaining("strip-request-headers[1]")
                .hasMessageContaining("'X Bad*' is not a header field name");
    }
}
