package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.RawClient;
import io.loomgate.testkit.RunningGateway;
import io.loomgate.testkit.TestOrigin;
import io.loomgate.testkit.TestPki;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.Test;

/**
 * Certificates replaced on disk while 100 keep-alive TLS connections stay open: the open connections keep working
 * on the old certificate, new handshakes get the new one, without a restart. A broken file keeps the certificate in
 * use; an explicit reload (what SIGHUP does) picks up a fixed one.
 */
class CertificateReloadTest {
    private static final long DEADLINE_NANOS = 30_000_000_000L;

    @Test
    void replacedFilesReachNewHandshakesWhileOpenConnectionsKeepWorking() throws Exception {
        TestPki pki = TestPki.create("Reload CA");
        TestPki.Issued before = pki.issue("before", "before.test", "localhost");
        TestPki.Issued after = pki.issue("after", "after.test", "localhost");
        Path live = Files.createDirectories(pki.dir().resolve("live"));
        Path cert = live.resolve("gateway.crt");
        Path key = live.resolve("gateway.key");
        Files.copy(before.cert(), cert);
        Files.copy(before.key(), key);
        try (TestOrigin origin = new TestOrigin();
             RunningGateway gw = RunningGateway.start("""
                     server:
                       address: 127.0.0.1
                       port: 0
                       ssl:
                         provider: ${TLS_PROVIDER}
                         certificate: ${CERT}
                         certificate-private-key: ${KEY}
                     admin:
                       port: 0
                     routes:
                       - { id: main, uri: "${ORIGIN}", predicates: [ "Path=/**" ] }
                     """, Map.of("ORIGIN", origin.uri(), "CERT", cert.toString(), "KEY", key.toString()))) {
            List<RawClient> open = new ArrayList<>();
            try {
                for (int i = 0; i < 100; i++) {
                    RawClient c = RawClient.tls(pki.clientContext(null), gw.port(), "localhost");
                    assertThat(c.get("/before/" + i).status()).isEqualTo(200);
                    open.add(c);
                }
                assertThat(subjectOfNewHandshake(pki, gw)).isEqualTo("CN=before.test");

                // Key first, then certificate, each renamed into place: for a moment they do not match, and the
                // reloader must keep the old pair through that moment rather than serve a broken one.
                TestPki.replace(after.key(), key);
                TestPki.replace(after.cert(), cert);
                awaitSubject(pki, gw, "CN=after.test");

                for (int i = 0; i < open.size(); i++) {
                    RawClient c = open.get(i);
                    assertThat(c.get("/still-open/" + i).status()).as("old connection %d", i).isEqualTo(200);
                    X509Certificate served = (X509Certificate) ((SSLSocket) c.socket()).getSession()
                            .getPeerCertificates()[0];
                    assertThat(served.getSubjectX500Principal().getName()).isEqualTo("CN=before.test");
                }
            } finally {
                for (RawClient c : open) {
                    c.close();
                }
            }

            // A broken certificate file: the one in use stays; reloading on demand (SIGHUP) says no.
            Files.writeString(cert, "-----BEGIN CERTIFICATE-----\nbroken\n-----END CERTIFICATE-----\n");
            assertThat(gw.gateway().reloadCertificates()).isFalse();
            assertThat(subjectOfNewHandshake(pki, gw)).isEqualTo("CN=after.test");

            // Fixed again, the explicit reload takes it at once.
            Files.copy(before.cert(), cert, StandardCopyOption.REPLACE_EXISTING);
            Files.copy(before.key(), key, StandardCopyOption.REPLACE_EXISTING);
            assertThat(gw.gateway().reloadCertificates()).isTrue();
            assertThat(subjectOfNewHandshake(pki, gw)).isEqualTo("CN=before.test");
        }
    }

    private static void awaitSubject(TestPki pki, RunningGateway gw, String subject) throws Exception {
        long deadline = System.nanoTime() + DEADLINE_NANOS;
        String seen = subjectOfNewHandshake(pki, gw);
        while (!seen.equals(subject)) {
            assertThat(System.nanoTime() - deadline).as("new certificate within 30 s, still %s", seen).isNegative();
            Thread.onSpinWait();
            seen = subjectOfNewHandshake(pki, gw);
        }
    }

    private static String subjectOfNewHandshake(TestPki pki, RunningGateway gw) throws Exception {
        try (RawClient c = RawClient.tls(pki.clientContext(null), gw.port(), "localhost")) {
            return ((X509Certificate) ((SSLSocket) c.socket()).getSession().getPeerCertificates()[0])
                    .getSubjectX500Principal().getName();
        }
    }
}
