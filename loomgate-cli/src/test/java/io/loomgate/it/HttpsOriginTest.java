package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.RunningGateway;
import io.loomgate.testkit.TestOrigin;
import io.loomgate.testkit.TestPki;
import io.loomgate.tls.ClientTls;
import io.loomgate.tls.ClientTlsSettings;
import io.loomgate.tls.KeySource;
import io.loomgate.tls.TlsFailures;
import io.loomgate.tls.TlsProvider;
import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * https:// origins: verified against a private CA given as upstream.ssl.trust-certificate, host name checked, a
 * client certificate presented where the origin requires one; an expired, misnamed or untrusted certificate is a
 * 502, and the cause is named the way an operator searches for it. Run once per provider (the build's Conscrypt pass
 * sets {@code upstream.ssl.provider: conscrypt}).
 */
class HttpsOriginTest {
    private static TestPki pki;
    private static TestPki.Issued gatewayClient;
    private static TestOrigin good;
    private static TestOrigin expired;
    private static TestOrigin misnamed;
    private static TestOrigin untrusted;
    private static TestOrigin mutual;
    private static TestOrigin longChain;
    private static RunningGateway gateway;

    @BeforeAll
    static void start() throws Exception {
        pki = TestPki.create("Origin CA");
        TestPki.Issued origin = pki.issue("origin", "origin.test", "localhost");
        TestPki.Issued old = pki.issue("old", "old.test", "ec", -1, "localhost");
        // Names only other.example: neither 127.0.0.1 nor localhost.
        TestPki.Issued other = pki.issue("other", "other.example", "ec", 30, "other.example");
        TestPki.Issued stranger = TestPki.create("Unknown CA").issue("stranger", "stranger", "localhost");
        gatewayClient = pki.issue("gateway-client", "loomgate");
        good = TestOrigin.tls(pki.serverContext(origin), false);
        expired = TestOrigin.tls(pki.serverContext(old), false);
        misnamed = TestOrigin.tls(pki.serverContext(other), false); // reached as 'localhost', which it does not name
        untrusted = TestOrigin.tls(pki.serverContext(stranger), false);
        mutual = TestOrigin.tls(pki.serverContext(origin), true);
        longChain = TestOrigin.tls(longChainContext(origin), false);
        Map<String, String> vars = new HashMap<>();
        vars.put("GOOD", good.uri("localhost"));
        vars.put("GOOD_IP", good.uri());
        vars.put("EXPIRED", expired.uri("localhost"));
        vars.put("MISNAMED", misnamed.uri("localhost"));
        vars.put("UNTRUSTED", untrusted.uri("localhost"));
        vars.put("MUTUAL", mutual.uri("localhost"));
        vars.put("LONG_CHAIN", longChain.uri("localhost"));
        vars.put("CA", pki.caCert().toString());
        vars.put("CLIENT_CERT", gatewayClient.cert().toString());
        vars.put("CLIENT_KEY", gatewayClient.key().toString());
        gateway = RunningGateway.start("""
                server:
                  address: 127.0.0.1
                  port: 0
                admin:
                  port: 0
                upstream:
                  ssl:
                    provider: ${TLS_PROVIDER}
                    trust-certificate: ${CA}
                    certificate: ${CLIENT_CERT}
                    certificate-private-key: ${CLIENT_KEY}
                routes:
                  - { id: good, uri: "${GOOD}", predicates: [ "Path=/good/**" ] }
                  - { id: good-ip, uri: "${GOOD_IP}", predicates: [ "Path=/good-ip/**" ] }
                  - { id: expired, uri: "${EXPIRED}", predicates: [ "Path=/expired/**" ] }
                  - { id: misnamed, uri: "${MISNAMED}", predicates: [ "Path=/misnamed/**" ] }
                  - { id: untrusted, uri: "${UNTRUSTED}", predicates: [ "Path=/untrusted/**" ] }
                  - { id: mutual, uri: "${MUTUAL}", predicates: [ "Path=/mutual/**" ] }
                  - { id: long-chain, uri: "${LONG_CHAIN}", predicates: [ "Path=/long-chain/**" ] }
                """, vars);
    }

    @AfterAll
    static void stop() throws IOException {
        gateway.close();
        for (TestOrigin o : new TestOrigin[] {good, expired, misnamed, untrusted, mutual, longChain}) {
            o.close();
        }
    }

    @Test
    void anOriginSignedByThePrivateCaIsServedAndItsConnectionReused() throws Exception {
        int before = good.connectionCount();
        for (int i = 0; i < 3; i++) {
            HttpResponse<String> r = gateway.get("/good/" + i);
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.body()).isEqualTo("hello from origin");
        }
        assertThat(good.connectionCount() - before).isEqualTo(1); // one handshake, pooled for the next two
        assertThat(gateway.get("/good-ip/x").statusCode()).isEqualTo(200); // by IP: the IP SAN is checked
    }

    @Test
    void expiredMisnamedAndUntrustedOriginsAre502() throws Exception {
        assertThat(gateway.get("/expired/x").statusCode()).isEqualTo(502);
        assertThat(gateway.get("/misnamed/x").statusCode()).isEqualTo(502);
        assertThat(gateway.get("/untrusted/x").statusCode()).isEqualTo(502);
        assertThat(expired.requestCount() + misnamed.requestCount() + untrusted.requestCount()).isZero();
    }

    @Test
    void handshakeFailuresAreNamedByCause() throws Exception {
        ClientTls tls = ClientTls.create(settings());
        assertThat(failure(tls, expired)).isEqualTo("certificate for host 'localhost' expired");
        assertThat(failure(tls, misnamed)).isEqualTo("host name mismatch: the certificate is not for 'localhost'");
        assertThat(failure(tls, untrusted))
                .isEqualTo("certificate for host 'localhost' is signed by an unknown CA");
    }

    /**
     * An origin presenting 11 certificates: its own, then the CA 10 times, which PKIX accepts (it stops at the first
     * trusted one) but is one over the 10 a client takes from a server (JSSE's
     * {@code jdk.tls.client.maxInboundCertificateChainLength}; {@code Trust.Funnel} applies it to Conscrypt too,
     * whose BoringSSL bounds the Certificate message by size only and would hand a long chain of distinct
     * certificates to PKIX's path building, session 59). A 502 counted as a TLS failure, the origin never asked, the
     * other routes served.
     */
    @Test
    void anOriginsChainOverTheLimitIsA502AndTheOtherRoutesAreServed() throws Exception {
        assertThat(gateway.get("/long-chain/x").statusCode()).isEqualTo(502);
        assertThat(failure(ClientTls.create(settings()), longChain))
                .startsWith("TLS handshake with 'localhost' failed:").contains("chain");
        assertThat(longChain.requestCount()).isZero();
        // another route (not /good: its test counts that origin's connections) served after the refusal
        assertThat(gateway.get("/mutual/after-long-chain").statusCode()).isEqualTo(200);
    }

    private static javax.net.ssl.SSLContext longChainContext(TestPki.Issued origin) throws Exception {
        java.security.KeyStore p12 = java.security.KeyStore.getInstance("PKCS12");
        try (java.io.InputStream in = java.nio.file.Files.newInputStream(origin.p12())) {
            p12.load(in, TestPki.PASSWORD.toCharArray());
        }
        String alias = p12.aliases().nextElement();
        java.security.cert.X509Certificate ca;
        try (java.io.InputStream in = java.nio.file.Files.newInputStream(pki.caCert())) {
            ca = (java.security.cert.X509Certificate) java.security.cert.CertificateFactory.getInstance("X.509")
                    .generateCertificate(in);
        }
        java.security.cert.X509Certificate[] chain = new java.security.cert.X509Certificate[11];
        chain[0] = origin.certificate();
        java.util.Arrays.fill(chain, 1, chain.length, ca);
        java.security.PrivateKey key = (java.security.PrivateKey) p12.getKey(alias, TestPki.PASSWORD.toCharArray());
        // a key manager of our own: a KeyStore refuses to store such a chain
        javax.net.ssl.X509ExtendedKeyManager km = new javax.net.ssl.X509ExtendedKeyManager() {
            @Override
            public String chooseEngineServerAlias(String keyType, java.security.Principal[] issuers,
                    javax.net.ssl.SSLEngine engine) {
                return "origin";
            }

            @Override
            public String chooseServerAlias(String keyType, java.security.Principal[] issuers, Socket socket) {
                return "origin";
            }

            @Override
            public String[] getServerAliases(String keyType, java.security.Principal[] issuers) {
                return new String[] {"origin"};
            }

            @Override
            public String[] getClientAliases(String keyType, java.security.Principal[] issuers) {
                return null;
            }

            @Override
            public String chooseClientAlias(String[] keyType, java.security.Principal[] issuers, Socket socket) {
                return null;
            }

            @Override
            public java.security.cert.X509Certificate[] getCertificateChain(String a) {
                return chain.clone();
            }

            @Override
            public java.security.PrivateKey getPrivateKey(String a) {
                return key;
            }
        };
        javax.net.ssl.SSLContext ctx = javax.net.ssl.SSLContext.getInstance("TLS");
        ctx.init(new javax.net.ssl.KeyManager[] {km}, null, null);
        return ctx;
    }

    /** upstream.ssl as the gateway above has it, with the provider this pass tests. */
    private static ClientTlsSettings settings() {
        return ClientTlsSettings.DEFAULTS.withTrust(pki.caCert())
                .withProvider(TlsProvider.valueOf(RunningGateway.tlsProvider().toUpperCase(Locale.ROOT)));
    }

    private static String failure(ClientTls tls, TestOrigin origin) throws Exception {
        Socket raw = new Socket(InetAddress.getLoopbackAddress(), origin.port());
        try (raw) {
            SSLSocket s = tls.handshake(raw, "localhost", origin.port(), Duration.ofSeconds(10));
            // TLS 1.3: a server that refuses our certificate says so after our side of the handshake is done.
            s.getOutputStream().write("GET /probe HTTP/1.1\r\nHost: localhost\r\n\r\n".getBytes());
            s.getInputStream().read(new byte[4096]);
            s.close();
            return "no failure";
        } catch (IOException e) {
            return TlsFailures.describe("localhost", e);
        }
    }

    @Test
    void theGatewayPresentsItsClientCertificateToAnOriginThatRequiresOne() throws Exception {
        assertThat(gateway.get("/mutual/x").statusCode()).isEqualTo(200);
        ClientTls withoutCertificate = ClientTls.create(settings());
        String refused = failure(withoutCertificate, mutual);
        // The origin's certificate_required alert, or, when our request was still being written as it closed, the
        // broken pipe that its closing left: a refusal either way.
        assertThat(refused).startsWith("TLS handshake with 'localhost' failed:");
        ClientTls withCertificate = ClientTls.create(settings()
                .withIdentity(KeySource.pem(gatewayClient.cert(), gatewayClient.key())));
        assertThat(failure(withCertificate, mutual)).isEqualTo("no failure");
    }

    @Test
    void aNewConnectionToTheSameOriginResumesTheTlsSession() throws Exception {
        ClientTls tls = ClientTls.create(settings());
        byte[] first;
        try (Socket raw = new Socket(InetAddress.getLoopbackAddress(), good.port());
             SSLSocket s = tls.handshake(raw, "localhost", good.port(), Duration.ofSeconds(10))) {
            // TLS 1.3 session tickets arrive after the handshake: one exchange reads them.
            s.getOutputStream().write("GET /resume HTTP/1.1\r\nHost: localhost\r\n\r\n".getBytes());
            s.getInputStream().read(new byte[4096]);
            first = s.getSession().getId();
        }
        assertThat(tls.sessions().getIds().hasMoreElements()).as("a session cached for resumption").isTrue();
        assertThat(first).isNotNull();
    }
}
