package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.cli.Gateway;
import io.loomgate.observe.GatewayMetrics;
import io.loomgate.ratelimit.RateLimitListener;
import io.loomgate.server.ConnectionListener;
import io.loomgate.testkit.FreePorts;
import io.loomgate.testkit.Jwts;
import io.loomgate.testkit.Jwts.SigningKey;
import io.loomgate.testkit.PrometheusText;
import io.loomgate.testkit.RunningGateway;
import io.loomgate.testkit.TestOrigin;
import io.loomgate.upstream.PoolListener;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The other key sources: a JWKS file, an HS256 secret, and a JWKS URL that cannot be reached. */
class JwtKeySourcesTest {
    private static final byte[] SECRET = "a lab secret of at least 32 bytes!!".getBytes(StandardCharsets.UTF_8);

    @Test
    void aJwksFileVerifiesTokensAndTheSubjectBecomesThePrincipal(@TempDir Path dir) throws Exception {
        SigningKey ed = Jwts.ed25519("ed-file");
        Path file = dir.resolve("jwks.json");
        Files.writeString(file, Jwts.jwks(ed));
        try (TestOrigin origin = new TestOrigin();
             RunningGateway gw = RunningGateway.to(origin, "filters:", "  - name: JwtAuth",
                     "    args: { jwks-file: '" + file + "', claims-to-headers: { sub: X-Subject } }")) {
            HttpResponse<String> r = gw.send(gw.request("/").header("Authorization", "Bearer " + ed.token()));
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(origin.takeRequest().header("X-Subject")).isEqualTo("alice");
        }
    }

    @Test
    void aSharedSecretVerifiesHs256AndRefusesAnotherSecret() throws Exception {
        try (TestOrigin origin = new TestOrigin();
             RunningGateway gw = RunningGateway.to(origin, "filters:", "  - name: JwtAuth",
                     "    args: { secret: '" + new String(SECRET, StandardCharsets.UTF_8) + "' }")) {
            String good = Jwts.hs256(SECRET, null, c -> { });
            String other = Jwts.hs256("another secret of at least 32 bytes!".getBytes(StandardCharsets.UTF_8),
                    null, c -> { });
            assertThat(gw.send(gw.request("/").header("Authorization", "Bearer " + good)).statusCode())
                    .isEqualTo(200);
            assertThat(gw.send(gw.request("/").header("Authorization", "Bearer " + other)).statusCode())
                    .isEqualTo(401);
            // An RS256 token is refused by algorithm before any key is looked at.
            HttpResponse<String> rs = gw.send(gw.request("/").header("Authorization", "Bearer "
                    + Jwts.rsa("rsa-1").token()));
            assertThat(rs.statusCode()).isEqualTo(401);
            assertThat(rs.headers().firstValue("WWW-Authenticate").orElse("")).contains("RS256 is not accepted");
        }
    }

    @Test
    void anUnreachableJwksIs503AfterABoundedWaitAndOtherRoutesKeepServing() throws Exception {
        int closed = FreePorts.refused();
        String yaml = """
                routes:
                  - id: secured
                    uri: ${ORIGIN}
                    predicates: [ "Path=/secured/**" ]
                    filters:
                      - name: JwtAuth
                        args: { jwks-uri: "http://127.0.0.1:${CLOSED}/jwks", jwks-timeout: 1s }
                  - id: open
                    uri: ${ORIGIN}
                    predicates: [ "Path=/**" ]
                """;
        try (TestOrigin origin = new TestOrigin();
             RunningGateway gw = RunningGateway.start(yaml, Map.of("ORIGIN", origin.uri(), "CLOSED",
                     Integer.toString(closed)))) {
            long start = System.nanoTime();
            HttpResponse<String> r = gw.send(gw.request("/secured/x").header("Authorization", "Bearer "
                    + Jwts.rsa("rsa-1").token()));
            assertThat(r.statusCode()).isEqualTo(503);
            assertThat(r.body()).contains("no signing keys");
            assertThat(System.nanoTime() - start).isLessThan(java.time.Duration.ofSeconds(8).toNanos());
            assertThat(gw.get("/open").statusCode()).isEqualTo(200);
        }
    }

    @Test
    void aStalledIdentityProviderCostsABoundedWaitThenKeysArriveWithoutRestart() throws Exception {
        SigningKey key = Jwts.ec("ec-late");
        try (TestOrigin idp = new TestOrigin(); TestOrigin origin = new TestOrigin()) {
            idp.enqueue(TestOrigin.Reply.ok("{}").with(TestOrigin.Effect.STALL))
                    .fallback(r -> JwtAuthTest.jwksReply(Jwts.jwks(key)));
            String yaml = """
                    routes:
                      - id: secured
                        uri: ${ORIGIN}
                        predicates: [ "Path=/secured/**" ]
                        filters:
                          - name: JwtAuth
                            args: { jwks-uri: "${IDP}/jwks", jwks-timeout: 1s, jwks-refresh: 1s }
                      - id: open
                        uri: ${ORIGIN}
                        predicates: [ "Path=/**" ]
                    """;
            try (RunningGateway gw = RunningGateway.start(yaml, Map.of("ORIGIN", origin.uri(), "IDP", idp.uri()))) {
                var secured = gw.request("/secured/x").header("Authorization", "Bearer " + key.token());
                long start = System.nanoTime();
                int first = gw.send(secured).statusCode();
                long waited = System.nanoTime() - start;
                assertThat(first).isIn(200, 503); // 503 while the first fetch hangs; 200 if its retry already won
                assertThat(waited).isLessThan(java.time.Duration.ofSeconds(8).toNanos());
                assertThat(gw.get("/open").statusCode()).isEqualTo(200);
                long deadline = System.nanoTime() + java.time.Duration.ofSeconds(20).toNanos();
                int status = first;
                while (status != 200 && System.nanoTime() < deadline) {
                    status = gw.send(secured).statusCode();
                }
                assertThat(status).isEqualTo(200);
            }
        }
    }

    /**
     * Each fetch of a JWK set is counted by outcome, under the URL without its query (which may carry a credential):
     * a failed one (here a 500) as {@code failed}, so an operator sees an identity provider that is down while the
     * keys held still let tokens through; the fetch that then succeeds as {@code fetched}.
     */
    @Test
    void everyJwksFetchIsCountedByOutcomeUnderTheUrlWithoutItsQuery() throws Exception {
        SigningKey key = Jwts.ec("ec-counted");
        GatewayMetrics metrics = new GatewayMetrics();
        try (TestOrigin idp = new TestOrigin(); TestOrigin origin = new TestOrigin()) {
            idp.enqueue(TestOrigin.Reply.status(500)).fallback(r -> JwtAuthTest.jwksReply(Jwts.jwks(key)));
            String yaml = """
                    routes:
                      - id: secured
                        uri: ${ORIGIN}
                        predicates: [ "Path=/**" ]
                        filters:
                          - name: JwtAuth
                            args: { jwks-uri: "${IDP}/jwks?tenant=t-secret", jwks-timeout: 1s, jwks-refresh: 1s }
                    """;
            try (RunningGateway gw = RunningGateway.start(yaml, Map.of("ORIGIN", origin.uri(), "IDP", idp.uri()),
                    new Gateway.Observers(metrics, PoolListener.NOOP, ConnectionListener.NOOP,
                            RateLimitListener.NOOP, metrics.jwks()))) {
                var secured = gw.request("/x").header("Authorization", "Bearer " + key.token());
                long deadline = System.nanoTime() + java.time.Duration.ofSeconds(20).toNanos();
                int status = gw.send(secured).statusCode();
                while (status != 200 && System.nanoTime() < deadline) {
                    status = gw.send(secured).statusCode();
                }
                assertThat(status).isEqualTo(200);
                PrometheusText scrape = new PrometheusText(metrics.registry().scrape());
                String source = "source=" + idp.uri() + "/jwks";
                assertThat(scrape.value("loomgate_jwks_fetches_total", source, "outcome=failed")).isEqualTo(1);
                assertThat(scrape.value("loomgate_jwks_fetches_total", source, "outcome=fetched")).isPositive();
                assertThat(scrape.toString()).doesNotContain("t-secret");
            } finally {
                metrics.close();
            }
        }
    }

    /** A {@code jwks-file} broken after start keeps its keys, and each failed re-read is counted. */
    @Test
    void aJwksFileBrokenLaterKeepsItsKeysAndEachFailedReReadIsCounted(@TempDir Path dir) throws Exception {
        SigningKey ed = Jwts.ed25519("ed-broken");
        Path file = dir.resolve("jwks.json");
        Files.writeString(file, Jwts.jwks(ed));
        GatewayMetrics metrics = new GatewayMetrics();
        String yaml = """
                routes:
                  - id: secured
                    uri: ${ORIGIN}
                    predicates: [ "Path=/**" ]
                    filters:
                      - name: JwtAuth
                        args: { jwks-file: "${FILE}", jwks-refresh: 1ms }
                """;
        try (TestOrigin origin = new TestOrigin();
             RunningGateway gw = RunningGateway.start(yaml, Map.of("ORIGIN", origin.uri(), "FILE", file.toString()),
                     new Gateway.Observers(metrics, PoolListener.NOOP, ConnectionListener.NOOP,
                             RateLimitListener.NOOP, metrics.jwks()))) {
            var secured = gw.request("/x").header("Authorization", "Bearer " + ed.token());
            assertThat(gw.send(secured).statusCode()).isEqualTo(200);
            Files.writeString(file, "{ not a jwk set");
            long deadline = System.nanoTime() + java.time.Duration.ofSeconds(20).toNanos();
            double failed = 0;
            while (failed == 0 && System.nanoTime() < deadline) {
                assertThat(gw.send(secured).statusCode()).isEqualTo(200); // each request starts a due re-read
                String text = metrics.registry().scrape();
                failed = text.contains("outcome=\"failed\"") ? new PrometheusText(text)
                        .value("loomgate_jwks_fetches_total", "source=" + file, "outcome=failed") : 0;
            }
            assertThat(failed).isPositive();
            assertThat(gw.send(secured).statusCode()).isEqualTo(200);
        } finally {
            metrics.close();
        }
    }
}
