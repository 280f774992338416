package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.loomgate.testkit.JarProcess;
import io.loomgate.testkit.RawClient;
import io.loomgate.testkit.TestOrigin;
import io.loomgate.testkit.TestPki;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.Test;

/**
 * The packaged jar as a TLS edge: curl through it, the admin listener on https (admin.ssl), SIGHUP reloading a
 * replaced certificate, and testssl.sh's verdict on protocols and ciphers (written to target/testssl-findings.txt,
 * summarised in docs/security.md).
 */
class TlsServeIT {
    /**
     * "true": everything but testssl.sh. The epoll IT pass sets it: the protocols and ciphers testssl judges are the
     * listener's engine settings ({@code ServerTls}), one code for either transport since TLS runs the same engine
     * loop over an epoll socket (session 47); the handshakes over that socket are TlsLoadTest's and
     * the hostile probe's (Hostile*ProbeTest) on the epoll surefire pass. testssl took ~20 s of the pass's 44 (session 59).
     */
    static final String SKIP_TESTSSL_PROPERTY = "loomgate.it.skip-testssl";

    @Test
    void servesTlsReloadsOnSighupAndPassesTestssl() throws Exception {
        boolean testssl = !Boolean.getBoolean(SKIP_TESTSSL_PROPERTY);
        TestPki.requireTool("curl", "--version");
        if (testssl) {
            TestPki.requireTool("testssl", "--version");
        }
        TestPki pki = TestPki.create("Serve IT CA");
        TestPki.Issued first = pki.issue("first", "first.test", "localhost");
        TestPki.Issued second = pki.issue("second", "second.test", "localhost");
        Path cert = pki.dir().resolve("live.crt");
        Path key = pki.dir().resolve("live.key");
        Files.copy(first.cert(), cert);
        Files.copy(first.key(), key);
        Path config = pki.dir().resolve("gateway.yaml");
        Files.writeString(config, """
                server:
                  address: 127.0.0.1
                  port: 0
                  ssl:
                    certificate: live.crt
                    certificate-private-key: live.key
                admin:
                  port: ${ADMIN_PORT}
                  ssl:
                    certificate: live.crt
                    certificate-private-key: live.key
                routes:
                  - { id: main, uri: "${ORIGIN}", predicates: [ "Path=/**" ] }
                """);
        try (TestOrigin origin = new TestOrigin();
             // admin port 0 would turn the admin listener off: a probed port, retried if lost before the bind
             JarProcess gw = JarProcess.listening(Duration.ofSeconds(60), admin -> JarProcess.start(List.of(),
                     List.of("serve", "--config", config.toString()),
                     Map.of("ORIGIN", origin.uri(), "ADMIN_PORT", Integer.toString(admin))))) {
            int port = gw.awaitListening(Duration.ofSeconds(60));
            int adminPort = gw.adminPort();
            assertThat(gw.output()).contains("(TLS TLSv1.3/TLSv1.2)");

            String out = TestPki.run(List.of("curl", "-sS", "--max-time", "20", "--cacert", pki.caCert().toString(),
                    "https://localhost:" + port + "/through"));
            assertThat(out).isEqualTo("hello from origin");
            String health = TestPki.run(List.of("curl", "-sS", "--max-time", "20", "--cacert",
                    pki.caCert().toString(), "https://localhost:" + adminPort + "/health/live"));
            assertThat(health).isEqualTo("live\n");

            Files.copy(second.cert(), cert, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            Files.copy(second.key(), key, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            new ProcessBuilder("kill", "-HUP", Long.toString(gw.pid())).start().waitFor();
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (!subject(pki, port).equals("CN=second.test")) {
                assertThat(System.nanoTime()).as("the new certificate after SIGHUP").isLessThan(deadline);
                Thread.onSpinWait();
            }
            // The reloader swaps the material, then logs: a handshake can see the new certificate first.
            while (!gw.output().contains("certificates reloaded")) {
                assertThat(System.nanoTime()).as("the reload's log line after SIGHUP").isLessThan(deadline);
                Thread.sleep(20); // a poll of the log file, bounded by the deadline above
            }

            if (!testssl) {
                System.out.println("testssl.sh not run: -D" + SKIP_TESTSSL_PROPERTY + "=true");
                return;
            }
            Map<String, String> findings = testssl(port);
            Files.writeString(Path.of("target", "testssl-findings.txt"), findings.entrySet().stream()
                    .map(e -> e.getKey() + ": " + e.getValue()).reduce("", (a, b) -> a + b + "\n"));
            assertThat(findings).containsEntry("SSLv2", "not offered").containsEntry("SSLv3", "not offered")
                    .containsEntry("TLS1", "not offered").containsEntry("TLS1_1", "not offered")
                    .containsEntry("TLS1_2", "offered");
            assertThat(findings.get("TLS1_3")).startsWith("offered");
            assertThat(findings.get("cipherlist_AVERAGE")).as("CBC suites").isEqualTo("not offered");
            assertThat(findings.get("cipherlist_NULL")).isEqualTo("not offered");
            assertThat(findings.get("cipherlist_EXPORT")).isEqualTo("not offered");
        }
    }

    private static String subject(TestPki pki, int port) throws Exception {
        try (RawClient c = RawClient.tls(pki.clientContext(null), port, "localhost")) {
            return ((X509Certificate) ((SSLSocket) c.socket()).getSession().getPeerCertificates()[0])
                    .getSubjectX500Principal().getName();
        }
    }

    /** testssl.sh's protocol, cipher-category and preference checks; its findings by id. */
    private static Map<String, String> testssl(int port) throws Exception {
        Path json = Files.createTempFile("testssl", ".json");
        Files.delete(json); // testssl refuses to overwrite
        List<String> cmd = new ArrayList<>(List.of("testssl", "--quiet", "--color", "0", "--warnings", "off",
                "--protocols", "--std", "--server-preference", "--jsonfile", json.toString(), "127.0.0.1:" + port));
        TestPki.run(cmd);
        Map<String, String> out = new LinkedHashMap<>();
        for (JsonNode n : new ObjectMapper().readTree(json.toFile())) {
            out.put(n.path("id").asText(), n.path("finding").asText());
        }
        return out;
    }
}
