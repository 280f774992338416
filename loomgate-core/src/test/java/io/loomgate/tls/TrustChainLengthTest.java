package io.loomgate.tls;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.loomgate.testkit.TestPki;
import java.io.InputStream;
import java.nio.file.Files;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.Arrays;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The gateway's trust managers take chains no longer than JSSE's own limits (8 certificates from a client, 10 from a
 * server), for either provider: JSSE enforces them while reading the Certificate message, BoringSSL (Conscrypt) does
 * not and handed a client's 241 certificates to the JDK's PKIX path builder (hundreds of MB and up to seconds per
 * handshake; MtlsChainProbeTest). A chain of the leaf and its CA repeated is one PKIX accepts (it stops at the first
 * trusted certificate), so the refusal here is the limit's, not PKIX's.
 */
class TrustChainLengthTest {
    private static X509Certificate leaf;
    private static X509Certificate ca;
    private static Trust.Swappable trust;

    @BeforeAll
    static void start() throws Exception {
        TestPki pki = TestPki.create("chain length CA");
        leaf = pki.issue("alice", "alice", "localhost").certificate();
        try (InputStream in = Files.newInputStream(pki.caCert())) {
            ca = (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
        }
        trust = new Trust.Swappable(Trust.fromPem(pki.caCert()));
    }

    private static X509Certificate[] chain(int length) {
        X509Certificate[] chain = new X509Certificate[length];
        Arrays.fill(chain, ca);
        chain[0] = leaf;
        return chain;
    }

    @Test
    void aClientChainOverEightIsRefusedBeforeThePkixCheck() {
        assertThatCode(() -> trust.checkClientTrusted(chain(8), "UNKNOWN")).doesNotThrowAnyException();
        assertThatThrownBy(() -> trust.checkClientTrusted(chain(9), "UNKNOWN"))
                .isInstanceOf(CertificateException.class)
                .hasMessage("a client certificate chain of 9 certificates, over the limit of 8 "
                        + "(jdk.tls.server.maxInboundCertificateChainLength)");
        assertThatThrownBy(() -> trust.checkClientTrusted(chain(241), "UNKNOWN", (javax.net.ssl.SSLEngine) null))
                .hasMessageContaining("chain of 241 certificates");
    }

    @Test
    void aServerChainOverTenIsRefusedBeforeThePkixCheck() {
        Trust.AnyOf upstream = new Trust.AnyOf(java.util.List.of(trust));
        assertThatCode(() -> upstream.checkServerTrusted(chain(10), "UNKNOWN")).doesNotThrowAnyException();
        assertThatThrownBy(() -> upstream.checkServerTrusted(chain(11), "UNKNOWN"))
                .isInstanceOf(CertificateException.class)
                .hasMessage("a server certificate chain of 11 certificates, over the limit of 10 "
                        + "(jdk.tls.client.maxInboundCertificateChainLength)");
    }
}
