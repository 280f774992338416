package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.Jwts;
import io.loomgate.testkit.Jwts.SigningKey;
import io.loomgate.testkit.RunningGateway;
import io.loomgate.testkit.TestOrigin;
import io.loomgate.testkit.TestPki;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A {@code jwks-uri} over https:// whose server's certificate a private CA signed (journal 2026-12-02-s59-combo10b,
 * defect 2): trusted through {@code jwks-trust-certificate}, else through {@code upstream.ssl.trust-certificate},
 * else not at all (the JDK's store does not know the CA: no keys, 503).
 */
class JwksTrustTest {
    private static TestPki pki;
    private static TestOrigin idp;
    private static TestOrigin origin;
    private static SigningKey rsa;

    @BeforeAll
    static void start() throws Exception {
        TestPki.requireOpenssl();
        pki = TestPki.create("IdP CA");
        rsa = Jwts.rsa("rsa-1");
        String jwks = Jwts.jwks(rsa);
        idp = TestOrigin.tls(pki.serverContext(pki.issue("idp", "idp.test", "localhost")), false)
                .fallback(r -> JwtAuthTest.jwksReply(jwks));
        origin = new TestOrigin();
    }

    @AfterAll
    static void stop() throws Exception {
        idp.close();
        origin.close();
    }

    private static String route(String id, String trust) {
        return "  - id: " + id + "\n    uri: ${ORIGIN}\n    predicates: [ \"Path=/" + id + "/**\" ]\n"
                + "    filters:\n      - name: JwtAuth\n        args: { jwks-uri: \"${IDP}/jwks\", jwks-timeout: 2s"
                + (trust == null ? "" : ", jwks-trust-certificate: \"" + trust + "\"") + " }\n";
    }

    private static int call(RunningGateway gw, String path) throws Exception {
        HttpResponse<String> r = gw.send(gw.request(path).header("Authorization", "Bearer " + rsa.token()));
        return r.statusCode();
    }

    @Test
    void theFilterArgumentTrustsThePrivateCaAndWithoutItTheJdkStoreRefusesIt() throws Exception {
        String yaml = "routes:\n" + route("own", pki.caCert().toString()) + route("jdk", null);
        try (RunningGateway gw = RunningGateway.start(yaml, Map.of("ORIGIN", origin.uri(), "IDP", idp.uri()))) {
            assertThat(call(gw, "/own/x")).isEqualTo(200);
            assertThat(call(gw, "/jdk/x")).isEqualTo(503); // PKIX path building failed: no keys
        }
    }

    @Test
    void upstreamSslTrustIsTheDefault() throws Exception {
        String yaml = "upstream:\n  ssl:\n    trust-certificate: \"" + pki.caCert() + "\"\nroutes:\n"
                + route("upstream", null);
        try (RunningGateway gw = RunningGateway.start(yaml, Map.of("ORIGIN", origin.uri(), "IDP", idp.uri()))) {
            assertThat(call(gw, "/upstream/x")).isEqualTo(200);
        }
    }

    @Test
    void anotherCaInTheArgumentIsNotTrusted() throws Exception {
        TestPki other = TestPki.create("Other CA");
        String yaml = "upstream:\n  ssl:\n    trust-certificate: \"" + pki.caCert() + "\"\nroutes:\n"
                + route("other", other.caCert().toString());
        try (RunningGateway gw = RunningGateway.start(yaml, Map.of("ORIGIN", origin.uri(), "IDP", idp.uri()))) {
            // The argument replaces upstream.ssl's CAs for this JWKS (it is not added to them).
            assertThat(call(gw, "/other/x")).isEqualTo(503);
        }
    }

    @Test
    void theTrustFileIsReadAgainAtTheNextFetchWithoutAReload(@TempDir Path dir) throws Exception {
        Path trust = dir.resolve("idp-ca.pem");
        Files.copy(TestPki.create("Wrong CA").caCert(), trust);
        String yaml = "routes:\n" + route("rotated", trust.toString()).replace("jwks-timeout: 2s",
                "jwks-timeout: 2s, jwks-refresh: 1s");
        try (RunningGateway gw = RunningGateway.start(yaml, Map.of("ORIGIN", origin.uri(), "IDP", idp.uri()))) {
            assertThat(call(gw, "/rotated/x")).isEqualTo(503);
            Path next = dir.resolve("next.pem");
            Files.copy(pki.caCert(), next);
            TestPki.replace(next, trust); // the operator fixes the file; no reload
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            int status = 503;
            while (status != 200 && System.nanoTime() - deadline < 0) {
                status = call(gw, "/rotated/x"); // each waits at most jwks-timeout for the retried fetch
            }
            assertThat(status).isEqualTo(200);
        }
    }
}
