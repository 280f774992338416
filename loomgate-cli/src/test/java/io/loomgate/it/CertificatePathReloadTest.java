package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.cli.ServedGateway;
import io.loomgate.config.ConfigLoader;
import io.loomgate.config.Plugins;
import io.loomgate.observe.ConfigReloads;
import io.loomgate.testkit.RawClient;
import io.loomgate.testkit.RunningGateway;
import io.loomgate.testkit.TestOrigin;
import io.loomgate.testkit.TestPki;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.Test;

/**
 * A reload whose file points {@code server.ssl} at other certificate files: the new certificate reaches new
 * handshakes at once (and its files are watched from then on), or, when the same file also changes what cannot
 * change live, nothing changes, the answer is needs_restart naming the key, and the old certificate is still served.
 * Such a reload once said "unchanged" and kept serving the old certificate.
 */
class CertificatePathReloadTest {
    private static final long DEADLINE_NANOS = 30_000_000_000L;

    @Test
    void aReloadNamingOtherCertificateFilesServesTheNewCertificate() throws Exception {
        TestPki pki = TestPki.create("Path Reload CA");
        TestPki.Issued before = pki.issue("before", "before.test", "localhost");
        TestPki.Issued after = pki.issue("after", "after.test", "localhost");
        TestPki.Issued rotated = pki.issue("rotated", "rotated.test", "localhost");
        Path dir = Files.createDirectories(pki.dir().resolve("paths"));
        Path newCert = Files.copy(after.cert(), dir.resolve("new.crt"));
        Path newKey = Files.copy(after.key(), dir.resolve("new.key"));
        Path file = dir.resolve("gateway.yaml");
        try (TestOrigin origin = new TestOrigin()) {
            Files.writeString(file, yaml(origin, before.cert(), before.key(), ""));
            try (ServedGateway gw = ServedGateway.start(RunningGateway.onTransportUnderTest(ConfigLoader.load(file)), Plugins.NONE,
                    new ServedGateway.Reloading(file, RunningGateway::onTransportUnderTest, false, false))) {
                assertThat(subjectOfNewHandshake(pki, gw)).isEqualTo("CN=before.test");

                Files.writeString(file, yaml(origin, newCert, newKey, ""));
                ConfigReloads.Result r = gw.reload();
                assertThat(r.outcome()).as(r.message()).isEqualTo("applied");
                assertThat(r.message()).contains("server.ssl");
                assertThat(subjectOfNewHandshake(pki, gw)).isEqualTo("CN=after.test");
                try (RawClient c = RawClient.tls(pki.clientContext(null), gw.port(), "localhost")) {
                    assertThat(c.get("/x").status()).isEqualTo(200);
                }

                // The new files are the ones watched now: rotating them reaches new handshakes without a reload.
                TestPki.replace(rotated.key(), newKey);
                TestPki.replace(rotated.cert(), newCert);
                awaitSubject(pki, gw, "CN=rotated.test");

                assertThat(gw.reload().outcome()).isEqualTo("unchanged");
            }
        }
    }

    @Test
    void aCertificateChangeWithAKeyThatNeedsARestartChangesNothingAndSaysSo() throws Exception {
        TestPki pki = TestPki.create("Path Reload CA 2");
        TestPki.Issued before = pki.issue("before", "before.test", "localhost");
        TestPki.Issued after = pki.issue("after", "after.test", "localhost");
        Path file = pki.dir().resolve("gateway.yaml");
        try (TestOrigin origin = new TestOrigin()) {
            Files.writeString(file, yaml(origin, before.cert(), before.key(), ""));
            try (ServedGateway gw = ServedGateway.start(RunningGateway.onTransportUnderTest(ConfigLoader.load(file)), Plugins.NONE,
                    new ServedGateway.Reloading(file, RunningGateway::onTransportUnderTest, false, false))) {
                Files.writeString(file, yaml(origin, after.cert(), after.key(),
                        "    enabled-protocols: [ TLSv1.3 ]\n"));
                ConfigReloads.Result r = gw.reload();
                assertThat(r.outcome()).as(r.message()).isEqualTo("needs_restart");
                assertThat(r.message()).contains("server.ssl.enabled-protocols")
                        .doesNotContain("server.ssl.certificate");
                assertThat(subjectOfNewHandshake(pki, gw)).isEqualTo("CN=before.test");
            }
        }
    }

    @Test
    void aCertificateFileThatCannotBeReadIsInvalidAndTheOldOneStays() throws Exception {
        TestPki pki = TestPki.create("Path Reload CA 3");
        TestPki.Issued before = pki.issue("before", "before.test", "localhost");
        Path missing = pki.dir().resolve("missing.crt");
        Path file = pki.dir().resolve("gateway.yaml");
        try (TestOrigin origin = new TestOrigin()) {
            Files.writeString(file, yaml(origin, before.cert(), before.key(), ""));
            try (ServedGateway gw = ServedGateway.start(RunningGateway.onTransportUnderTest(ConfigLoader.load(file)), Plugins.NONE,
                    new ServedGateway.Reloading(file, RunningGateway::onTransportUnderTest, false, false))) {
                Files.writeString(file, yaml(origin, missing, before.key(), ""));
                ConfigReloads.Result r = gw.reload();
                assertThat(r.outcome()).as(r.message()).isEqualTo("invalid");
                assertThat(r.message()).contains("missing.crt");
                assertThat(subjectOfNewHandshake(pki, gw)).isEqualTo("CN=before.test");
            }
        }
    }

    private static String yaml(TestOrigin origin, Path cert, Path key, String moreSsl) {
        return """
                server:
                  address: 127.0.0.1
                  port: 0
                  ssl:
                    provider: %s
                    certificate: %s
                    certificate-private-key: %s
                %sadmin:
                  port: 0
                access-log:
                  enabled: false
                routes:
                  - { id: main, uri: "%s", predicates: [ "Path=/**" ] }
                """.formatted(System.getProperty("loomgate.test.tls-provider", "jdk"), cert, key, moreSsl,
                origin.uri());
    }

    private static void awaitSubject(TestPki pki, ServedGateway gw, String subject) throws Exception {
        long deadline = System.nanoTime() + DEADLINE_NANOS;
        String seen = subjectOfNewHandshake(pki, gw);
        while (!seen.equals(subject)) {
            assertThat(System.nanoTime() - deadline).as("new certificate within 30 s, still %s", seen).isNegative();
            Thread.onSpinWait();
            seen = subjectOfNewHandshake(pki, gw);
        }
    }

    private static String subjectOfNewHandshake(TestPki pki, ServedGateway gw) throws Exception {
        try (RawClient c = RawClient.tls(pki.clientContext(null), gw.port(), "localhost")) {
            return ((X509Certificate) ((SSLSocket) c.socket()).getSession().getPeerCertificates()[0])
                    .getSubjectX500Principal().getName();
        }
    }
}
