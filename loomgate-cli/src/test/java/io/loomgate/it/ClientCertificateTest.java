package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.loomgate.testkit.RawClient;
import io.loomgate.testkit.RunningGateway;
import io.loomgate.testkit.TestOrigin;
import io.loomgate.testkit.TestPki;
import java.io.IOException;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * client-auth need: a client without a certificate (or with one from another CA) is refused in the handshake; one
 * with a good certificate is served, and the origin learns who it was from X-Forwarded-Client-Cert, which the
 * gateway writes itself and never takes from the client.
 */
class ClientCertificateTest {
    private static TestPki pki;
    private static TestPki.Issued alice;
    private static TestOrigin origin;
    private static RunningGateway need;
    private static RunningGateway want;

    @BeforeAll
    static void start() throws Exception {
        pki = TestPki.create("Client Auth CA");
        TestPki.Issued server = pki.issue("server", "gateway.test", "localhost");
        alice = pki.issue("alice", "alice");
        origin = new TestOrigin();
        Map<String, String> vars = Map.of("ORIGIN", origin.uri(), "CERT", server.cert().toString(),
                "KEY", server.key().toString(), "CA", pki.caCert().toString());
        need = RunningGateway.start(yaml("need"), vars);
        want = RunningGateway.start(yaml("want"), vars);
    }

    private static String yaml(String auth) {
        return """
                server:
                  address: 127.0.0.1
                  port: 0
                  ssl:
                    provider: ${TLS_PROVIDER}
                    certificate: ${CERT}
                    certificate-private-key: ${KEY}
                    client-auth: %s
                    trust-certificate: ${CA}
                admin:
                  port: 0
                routes:
                  - id: certified
                    uri: ${ORIGIN}
                    predicates: [ "Path=/certified/**", "Header=X-Forwarded-Client-Cert" ]
                    filters: [ "AddRequestHeader=X-Route, certified" ]
                  - id: main
                    uri: ${ORIGIN}
                    predicates: [ "Path=/**" ]
                """.formatted(auth);
    }

    @AfterAll
    static void stop() throws IOException {
        need.close();
        want.close();
        origin.close();
    }

    @Test
    void aGoodClientCertificateIsServedAndItsSubjectAndHashGoUpstream() throws Exception {
        try (RawClient c = RawClient.tls(pki.clientContext(alice), need.port(), "localhost")) {
            RawClient.Response r = c.send("GET /who HTTP/1.1\r\nHost: x\r\n"
                    + "X-Forwarded-Client-Cert: Hash=forged;Subject=\"CN=admin\"\r\n\r\n").read();
            assertThat(r.status()).isEqualTo(200);
        }
        TestOrigin.Recorded seen = seen("/who");
        String hash = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                .digest(alice.certificate().getEncoded()));
        assertThat(seen.headers("X-Forwarded-Client-Cert")).containsExactly("Hash=" + hash + ";Subject=\"CN=alice\"");
        assertThat(seen.header("X-Forwarded-Proto")).isEqualTo("https");
    }

    @Test
    void noClientCertificateIsRefusedInTheHandshake() {
        // TLS 1.3: the client's handshake completes before the server has checked; the refusal arrives on the
        // first read as an alert, and no request reaches the origin.
        assertThatThrownBy(() -> {
            try (RawClient c = RawClient.tls(pki.clientContext(null), need.port(), "localhost")) {
                c.get("/anonymous");
            }
        }).isInstanceOf(IOException.class);
        assertThat(origin.received()).noneMatch(r -> r.target().equals("/anonymous"));
    }

    @Test
    void aCertificateFromAnotherCaIsRefused() throws Exception {
        TestPki other = TestPki.create("Some Other CA");
        TestPki.Issued mallory = other.issue("mallory", "alice");
        assertThatThrownBy(() -> {
            try (RawClient c = RawClient.tls(pki.clientContext(mallory), need.port(), "localhost")) {
                c.get("/mallory");
            }
        }).isInstanceOf(IOException.class);
        assertThat(origin.received()).noneMatch(r -> r.target().equals("/mallory"));
    }

    @Test
    void withWantAClientWithoutACertificateIsServedAndAForgedHeaderIsRemoved() throws Exception {
        try (RawClient c = RawClient.tls(pki.clientContext(null), want.port(), "localhost")) {
            RawClient.Response r = c.send("GET /anonymous-want HTTP/1.1\r\nHost: x\r\n"
                    + "X-Forwarded-Client-Cert: Hash=forged;Subject=\"CN=admin\"\r\n\r\n").read();
            assertThat(r.status()).isEqualTo(200);
        }
        assertThat(seen("/anonymous-want").header("X-Forwarded-Client-Cert")).isNull();
    }

    /**
     * Issue 35 item 5: a route on X-Forwarded-Client-Cert sees the gateway's field, made before routing: a client with
     * a verified certificate matches it, a client without one that sends the field itself does not.
     */
    @Test
    void aRouteOnTheClientCertFieldMatchesOnlyAVerifiedCertificate() throws Exception {
        try (RawClient c = RawClient.tls(pki.clientContext(alice), want.port(), "localhost")) {
            assertThat(c.send("GET /certified/alice HTTP/1.1\r\nHost: x\r\n\r\n").read().status()).isEqualTo(200);
        }
        try (RawClient c = RawClient.tls(pki.clientContext(null), want.port(), "localhost")) {
            assertThat(c.send("GET /certified/anonymous HTTP/1.1\r\nHost: x\r\n"
                    + "X-Forwarded-Client-Cert: Hash=forged;Subject=\"CN=alice\"\r\n\r\n").read().status())
                    .isEqualTo(200);
        }
        assertThat(seen("/certified/alice").header("X-Route")).isEqualTo("certified");
        assertThat(seen("/certified/anonymous").header("X-Route")).as("served by the main route").isNull();
    }

    private static TestOrigin.Recorded seen(String target) {
        return origin.received().stream().filter(r -> r.target().equals(target)).findFirst()
                .orElseThrow(() -> new AssertionError("the origin never received " + target));
    }
}
