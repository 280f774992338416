package io.loomgate.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.loomgate.testkit.RedisServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code rediss://}: a real TLS handshake with a redis-server whose certificate the test makes (openssl), trusted
 * through {@code ca-file}; refused when the CA is not trusted or the certificate names another host.
 */
class RedisTlsTest {
    private final RateLimit limit = new RateLimit(10, 20, 1);

    @Test
    void aRedissUrlTalksTlsAndChecksTheCertificateAndItsHostName(@TempDir Path dir) throws Exception {
        Path ca = dir.resolve("ca.pem");
        openssl(dir, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.pem",
                "-days", "2", "-subj", "/CN=loomgate-test-ca");
        Path good = serverCert(dir, "good", "IP:127.0.0.1");
        Path wrongHost = serverCert(dir, "wrong", "DNS:redis.elsewhere.example");

        try (RedisServer redis = RedisServer.startTls(good, dir.resolve("good.key"), ca)) {
            assertThat(redis.url()).startsWith("rediss://");
            try (RedisStore trusted = store(redis.url(), ca)) {
                Decision d = trusted.consume("alice", limit);
                assertThat(d.allowed()).isTrue();
                assertThat(d.remaining()).isEqualTo(19);
            }
            try (RedisStore jdkTrustOnly = store(redis.url(), null)) {
                assertThatThrownBy(() -> jdkTrustOnly.consume("alice", limit))
                        .isInstanceOf(StoreUnavailableException.class);
            }
        }
        try (RedisServer impostor = RedisServer.startTls(wrongHost, dir.resolve("wrong.key"), ca);
             RedisStore store = store(impostor.url(), ca)) {
            // Signed by the trusted CA, but for another host: the host-name check must refuse it.
            assertThatThrownBy(() -> store.consume("alice", limit)).isInstanceOf(StoreUnavailableException.class)
                    .hasStackTraceContaining("No subject alternative");
        }
    }

    private static RedisStore store(String url, Path ca) {
        RedisSettings s = RedisSettings.parse(url, Duration.ofSeconds(3), 2, ca);
        return new RedisStore(ca == null ? s : s.checkCaFile());
    }

    private static Path serverCert(Path dir, String name, String san) throws Exception {
        Files.writeString(dir.resolve(name + ".ext"), "subjectAltName=" + san + "\n");
        openssl(dir, "req", "-newkey", "rsa:2048", "-nodes", "-keyout", name + ".key", "-out", name + ".csr",
                "-subj", "/CN=" + name);
        openssl(dir, "x509", "-req", "-in", name + ".csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
                "-out", name + ".pem", "-days", "2", "-extfile", name + ".ext");
        return dir.resolve(name + ".pem");
    }

    private static void openssl(Path dir, String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of("openssl"));
        cmd.addAll(List.of(args));
        Process p;
        try {
            p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).start();
        } catch (IOException e) {
            if ("true".equals(System.getenv("CI"))) {
                throw new AssertionError("openssl is needed to make the test's certificates", e);
            }
            Assumptions.abort("openssl is not installed; it makes the test's certificates");
            throw e;
        }
        String out = new String(p.getInputStream().readAllBytes());
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new AssertionError("openssl " + String.join(" ", args) + " failed: " + out);
        }
    }
}
