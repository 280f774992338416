package io.loomgate.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.loomgate.testkit.TestPki;
import io.loomgate.tls.ClientAuth;
import io.loomgate.tls.ServerTlsSettings;
import io.loomgate.tls.TlsProvider;
import io.loomgate.upstream.Endpoint;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The ssl sections in Spring Boot's key names: what they read, and every refusal naming file, line and key, with the
 * certificate files themselves loaded at start-up (a missing file or a key of another certificate is a config
 * error, not a failure at the first handshake).
 */
class TlsConfigTest {
    private static TestPki pki;
    private static TestPki.Issued server;
    private static TestPki.Issued other;

    @BeforeAll
    static void certificates() throws Exception {
        pki = TestPki.create("Config CA");
        server = pki.issue("server", "gateway.test", "localhost");
        other = pki.issue("other", "other.test", "other.test");
    }

    private static GatewayConfig parse(String yaml) throws ConfigException {
        return ConfigLoader.parse(yaml, "gateway.yaml", Map.of("CERT", server.cert().toString(),
                "KEY", server.key().toString(), "OTHER_KEY", other.key().toString(),
                "CA", pki.caCert().toString(), "P12", server.p12().toString()));
    }

    private static String refusal(String yaml) {
        try {
            parse(yaml);
        } catch (ConfigException e) {
            return e.getMessage();
        }
        throw new AssertionError("accepted:\n" + yaml);
    }

    @Test
    void readsServerSslWithItsDefaults() throws Exception {
        GatewayConfig c = parse("""
                server:
                  port: 8443
                  http-redirect-port: 8080
                  ssl:
                    certificate: ${CERT}
                    certificate-private-key: ${KEY}
                    server-names:
                      - server-name: "*.Internal.Example"
                        key-store: ${P12}
                        key-store-password: changeit
                    client-auth: want
                    trust-certificate: ${CA}
                """);
        var ssl = c.tls().server();
        assertThat(ssl.protocols()).containsExactly("TLSv1.3", "TLSv1.2");
        assertThat(ssl.ciphers()).isEmpty();
        assertThat(ssl.clientAuth()).isEqualTo(ClientAuth.WANT);
        assertThat(ssl.applicationProtocols()).as("server.http2 is on by default").containsExactly("h2", "http/1.1");
        assertThat(ssl.certificates()).hasSize(2);
        assertThat(ssl.certificates().get(1).serverName()).isEqualTo("*.internal.example");
        assertThat(ssl.sessionResumption()).isTrue();
        assertThat(ssl.provider()).as("provider: auto by default")
                .isEqualTo(TlsProvider.auto(List.of(), ServerTlsSettings.DEFAULT_PROTOCOLS).provider());
        assertThat(c.tls().httpRedirectPort()).isEqualTo(8080);
        assertThat(c.tls().admin()).isNull();
    }

    @Test
    void alpnOffersHttp11AloneWhenHttp2IsTurnedOff() throws Exception {
        GatewayConfig c = parse("""
                server:
                  http2:
                    enabled: false
                  ssl:
                    certificate: ${CERT}
                    certificate-private-key: ${KEY}
                """);
        assertThat(c.tls().server().applicationProtocols()).containsExactly("http/1.1");
    }

    @Test
    void httpsRoutesAreTlsEndpointsOnPort443ByDefault() throws Exception {
        GatewayConfig c = parse("""
                routes:
                  - id: a
                    uris: [ "https://api.example", "https://[::1]:8443", "http://plain:81" ]
                """);
        assertThat(GatewayAssembly.build(c).upstreams().get(0).endpoints()).containsExactly(
                new Endpoint("api.example", 443, true), new Endpoint("::1", 8443, true),
                new Endpoint("plain", 81, false));
    }

    @Test
    void aMissingCertificateFileIsRefusedAtItsKey() {
        assertThat(refusal("""
                server:
                  ssl:
                    certificate: /nonexistent/gateway.crt
                    certificate-private-key: ${KEY}
                """)).isEqualTo("gateway.yaml:3: server.ssl.certificate: /nonexistent/gateway.crt: no such file");
    }

    @Test
    void aKeyOfAnotherCertificateIsRefusedAtTheKeysLine() {
        assertThat(refusal("""
                server:
                  ssl:
                    certificate: ${CERT}
                    certificate-private-key: ${OTHER_KEY}
                """)).startsWith("gateway.yaml:4: server.ssl.certificate-private-key: " + other.key()
                + ": the private key does not belong to the certificate 'CN=gateway.test'");
    }

    @Test
    void aCertificateWithoutItsKeyAndSslWithoutACertificateAreRefused() {
        assertThat(refusal("server:\n  ssl:\n    certificate: ${CERT}\n"))
                .isEqualTo("gateway.yaml:3: server.ssl.certificate: needs certificate-private-key (the PEM private "
                        + "key of the certificate)");
        assertThat(refusal("server:\n  ssl:\n    client-auth: none\n"))
                .startsWith("gateway.yaml:3: server.ssl.certificate: missing");
    }

    @Test
    void oldProtocolsAreRefused() {
        assertThat(refusal("""
                server:
                  ssl:
                    certificate: ${CERT}
                    certificate-private-key: ${KEY}
                    enabled-protocols: [ TLSv1.3, TLSv1.1 ]
                """)).startsWith("gateway.yaml:5: server.ssl.enabled-protocols: protocol 'TLSv1.1' is not allowed");
    }

    @Test
    void theProviderIsJdkOrConscryptAndAnythingElseIsRefusedAtItsLine() throws Exception {
        assertThat(parse("""
                server:
                  ssl:
                    certificate: ${CERT}
                    certificate-private-key: ${KEY}
                    provider: Conscrypt
                """).tls().server().provider()).isEqualTo(TlsProvider.CONSCRYPT);
        assertThat(refusal("""
                server:
                  ssl:
                    certificate: ${CERT}
                    certificate-private-key: ${KEY}
                    provider: openssl
                """)).isEqualTo("gateway.yaml:5: server.ssl.provider: expected auto, jdk or conscrypt, got 'openssl'");
    }

    @Test
    void autoPicksConscryptWhereItRunsAndTheJdkForCiphersBoringSslCannotHonour() throws Exception {
        TlsProvider platform = TlsProvider.auto(List.of(), ServerTlsSettings.DEFAULT_PROTOCOLS).provider();
        assertThat(parse("""
                server:
                  ssl:
                    certificate: ${CERT}
                    certificate-private-key: ${KEY}
                    provider: auto
                """).tls().server().provider()).isEqualTo(platform);
        if (TlsProvider.CONSCRYPT.unavailableReason() == null && System.getProperty("os.name").startsWith("Linux")) {
            assertThat(platform).as("glibc Linux, JDK 24+, native library loads").isEqualTo(TlsProvider.CONSCRYPT);
        }
        // Only some TLS 1.3 suites named: conscrypt would be refused, auto takes the JDK's instead.
        assertThat(parse("""
                server:
                  ssl:
                    certificate: ${CERT}
                    certificate-private-key: ${KEY}
                    ciphers: [ TLS_AES_128_GCM_SHA256, TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256 ]
                """).tls().server().provider()).isEqualTo(TlsProvider.JDK);
        assertThat(parse("upstream:\n  ssl:\n    provider: auto\n").tls().upstream().provider()).isEqualTo(platform);
    }

    @Test
    void upstreamSslTakesTheProviderToo() throws Exception {
        assertThat(parse("upstream:\n  ssl:\n    insecure: true\n").tls().upstream().provider())
                .isEqualTo(TlsProvider.JDK);
        assertThat(parse("upstream:\n  ssl:\n    provider: conscrypt\n").tls().upstream().provider())
                .isEqualTo(TlsProvider.CONSCRYPT);
        assertThat(refusal("upstream:\n  ssl:\n    provider: boring\n"))
                .isEqualTo("gateway.yaml:3: upstream.ssl.provider: expected auto, jdk or conscrypt, got 'boring'");
        assertThat(refusal("""
                upstream:
                  ssl:
                    provider: conscrypt
                    ciphers: [ TLS_AES_256_GCM_SHA384 ]
                """)).startsWith("gateway.yaml:4: upstream.ssl.ciphers: with provider conscrypt and TLSv1.3 enabled,");
    }

    @Test
    void conscryptRefusesACipherListThatWouldNarrowTls13() throws Exception {
        assertThat(refusal("""
                server:
                  ssl:
                    certificate: ${CERT}
                    certificate-private-key: ${KEY}
                    provider: conscrypt
                    ciphers: [ TLS_AES_128_GCM_SHA256, TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256 ]
                """)).startsWith("gateway.yaml:6: server.ssl.ciphers: with provider conscrypt and TLSv1.3 enabled,"
                + " ciphers must name all three TLS 1.3 suites");
        assertThat(parse("""
                server:
                  ssl:
                    certificate: ${CERT}
                    certificate-private-key: ${KEY}
                    provider: conscrypt
                    enabled-protocols: [ TLSv1.2 ]
                    ciphers: [ TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256 ]
                """).tls().server().ciphers()).containsExactly("TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256");
    }

    @Test
    void clientAuthNeedsTheCasThatSignClientCertificates() {
        assertThat(refusal("""
                server:
                  ssl:
                    certificate: ${CERT}
                    certificate-private-key: ${KEY}
                    client-auth: need
                """)).isEqualTo("gateway.yaml:5: server.ssl.client-auth: client-auth need needs "
                + "server.ssl.trust-certificate (PEM CAs that sign client certificates)");
        assertThat(refusal("""
                server:
                  ssl:
                    certificate: ${CERT}
                    certificate-private-key: ${KEY}
                    client-auth: sometimes
                """)).isEqualTo("gateway.yaml:5: server.ssl.client-auth: expected none, want or need, got "
                + "'sometimes'");
    }

    @Test
    void theRedirectPortNeedsTls() {
        assertThat(refusal("server:\n  http-redirect-port: 8080\n"))
                .isEqualTo("gateway.yaml:2: server.http-redirect-port: redirects to https, so it needs server.ssl");
    }

    @Test
    void unknownCipherSuitesAndWrongKeyStorePasswordsAreRefused() {
        assertThat(refusal("""
                server:
                  ssl:
                    certificate: ${CERT}
                    certificate-private-key: ${KEY}
                    ciphers: [ TLS_NOT_A_CIPHER ]
                """)).startsWith("gateway.yaml:5: server.ssl.ciphers: unknown cipher suite 'TLS_NOT_A_CIPHER'");
        assertThat(refusal("""
                server:
                  ssl:
                    key-store: ${P12}
                    key-store-password: wrong
                """)).startsWith("gateway.yaml:3: server.ssl.key-store: " + server.p12());
    }

    @Test
    void upstreamSslReadsTrustAndClientCertificateAndRefusesAMissingCa() throws Exception {
        GatewayConfig c = parse("""
                upstream:
                  ssl:
                    trust-certificate: ${CA}
                    certificate: ${CERT}
                    certificate-private-key: ${KEY}
                """);
        assertThat(c.tls().upstream().trustCertificate()).isEqualTo(pki.caCert());
        assertThat(c.tls().upstream().identity()).isNotNull();
        assertThat(c.tls().upstream().insecure()).isFalse();
        assertThat(refusal("upstream:\n  ssl:\n    trust-certificate: /nonexistent/ca.pem\n"))
                .isEqualTo("gateway.yaml:3: upstream.ssl.trust-certificate: /nonexistent/ca.pem: no such file");
    }

    @Test
    void relativePathsAreResolvedAgainstTheConfigFilesDirectory() throws Exception {
        Path dir = Files.createDirectories(pki.dir().resolve("conf"));
        Files.copy(server.cert(), dir.resolve("gw.crt"));
        Files.copy(server.key(), dir.resolve("gw.key"));
        Path file = dir.resolve("gateway.yaml");
        Files.writeString(file, "server:\n  ssl:\n    certificate: gw.crt\n    certificate-private-key: gw.key\n");
        GatewayConfig c = ConfigLoader.load(file);
        assertThat(c.tls().server().certificates().get(0).source().certificate()).isEqualTo(dir.resolve("gw.crt"));
        assertThatThrownBy(() -> ConfigLoader.parse("server:\n  ssl:\n    certificate: gw.crt\n"
                + "    certificate-private-key: gw.key\n", dir.getParent().resolve("elsewhere.yaml").toString(),
                Map.of())).hasMessageContaining("no such file");
    }
}
