package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.Jwts;
import io.loomgate.testkit.Jwts.SigningKey;
import io.loomgate.testkit.RunningGateway;
import io.loomgate.testkit.TestOrigin;
import io.loomgate.testkit.TestOrigin.Recorded;
import io.loomgate.testkit.TestOrigin.Reply;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * JwtAuth through the running gateway: tokens signed by keys the test generates, the JWKS served by a test origin
 * playing the identity provider (and rotating its key), every bad token refused with RFC 6750's challenge before the
 * origin sees anything.
 */
class JwtAuthTest {
    private static final String ISSUER = "https://idp.test";

    private final SigningKey rsa = Jwts.rsa("rsa-1");
    private final SigningKey ec = Jwts.ec("ec-1");
    private final SigningKey ed = Jwts.ed25519("ed-1");
    private final AtomicReference<String> published = new AtomicReference<>();
    private TestOrigin idp;
    private TestOrigin origin;
    private RunningGateway gw;

    @BeforeEach
    void start() throws Exception {
        published.set(Jwts.jwks(rsa, ec, ed));
        idp = new TestOrigin().fallback(r -> jwksReply(published.get()));
        origin = new TestOrigin();
        gw = RunningGateway.start("""
                routes:
                  - id: api
                    uri: ${ORIGIN}
                    predicates: [ "Path=/**" ]
                    filters:
                      - name: JwtAuth
                        args:
                          jwks-uri: ${IDP}/.well-known/jwks.json
                          issuer: https://idp.test
                          audiences: [ api, other ]
                          required-scopes: [ read ]
                          claims-to-headers:
                            sub: X-User-Id
                            email: X-User-Email
                            roles: X-User-Roles
                            profile: X-User-Profile
                            name: X-User-Name
                """, Map.of("ORIGIN", origin.uri(), "IDP", idp.uri()));
    }

    @AfterEach
    void stop() throws Exception {
        gw.close();
        origin.close();
        idp.close();
    }

    static Reply jwksReply(String json) {
        byte[] b = json.getBytes(StandardCharsets.UTF_8);
        return new Reply("HTTP/1.1 200 OK", List.of("Content-Type: application/jwk-set+json",
                "Content-Length: " + b.length), List.of(b), Duration.ZERO, Duration.ZERO, TestOrigin.Effect.NONE);
    }

    private String good(SigningKey key) {
        return key.token(c -> c.issuer(ISSUER).audience("api").claim("scope", "read write")
                .claim("email", "alice@example.com"));
    }

    private HttpResponse<String> call(String authorization) throws Exception {
        var request = gw.request("/orders").header("X-User-Id", "mallory").header("X-User-Email", "spoof@evil.test");
        if (authorization != null) {
            request.header("Authorization", authorization);
        }
        return gw.send(request);
    }

    @Test
    void aValidTokenReachesTheOriginWithItsClaimsAsHeadersAndTheClientsCopiesGone() throws Exception {
        for (SigningKey key : List.of(rsa, ec, ed)) {
            HttpResponse<String> r = call("Bearer " + good(key));
            assertThat(r.statusCode()).as(key.alg().getName()).isEqualTo(200);
            Recorded at = origin.takeRequest();
            assertThat(at.headers("X-User-Id")).containsExactly("alice");
            assertThat(at.headers("X-User-Email")).containsExactly("alice@example.com");
            assertThat(at.header("Authorization")).startsWith("Bearer ");
        }
    }

    /**
     * Issue 35 item 10: structured and non-ASCII claims keep a defined header form. An object is JSON (non-ASCII
     * escaped), list items are comma-separated with an item that holds a comma, quote or backslash written as an
     * RFC 9110 quoted-string, and a non-ASCII string is an RFC 8187 ext-value; no raw UTF-8 byte reaches a header.
     */
    @Test
    void structuredAndNonAsciiClaimsAreEncodedNotPrinted() throws Exception {
        String token = ec.token(c -> c.issuer(ISSUER).audience("api").claim("scope", "read")
                .claim("roles", List.of("reader", "a,b", "say \"hi\"", "Zo\u00eb"))
                .claim("profile", Map.of("admin", true))
                .claim("name", "Zo\u00eb \u20ac"));
        assertThat(call("Bearer " + token).statusCode()).isEqualTo(200);
        Recorded at = origin.takeRequest();
        assertThat(at.header("X-User-Profile")).isEqualTo("{\"admin\":true}");
        assertThat(at.header("X-User-Roles")).isEqualTo("reader,\"a,b\",\"say \\\"hi\\\"\",UTF-8''Zo%C3%AB");
        assertThat(at.header("X-User-Name")).isEqualTo("UTF-8''Zo%C3%AB%20%E2%82%AC");
        for (String name : List.of("X-User-Profile", "X-User-Roles", "X-User-Name")) {
            assertThat(at.header(name).chars().allMatch(c -> c >= 0x20 && c < 0x7f)).as(name).isTrue();
        }
    }

    @Test
    void noTokenIs401WithABareChallengeAndTheSpoofedHeadersNeverArrive() throws Exception {
        HttpResponse<String> r = call(null);
        assertThat(r.statusCode()).isEqualTo(401);
        assertThat(r.headers().firstValue("WWW-Authenticate")).contains("Bearer");
        HttpResponse<String> basic = call("Basic YWxpY2U6c2VjcmV0");
        assertThat(basic.statusCode()).isEqualTo(401);
        assertThat(basic.headers().firstValue("WWW-Authenticate")).contains("Bearer");
        assertThat(origin.requestCount()).isZero();
    }

    @Test
    void everyBadTokenIs401InvalidTokenAndNeverReachesTheOrigin() throws Exception {
        Date past = Date.from(Instant.now().minus(Duration.ofMinutes(2)));
        Date future = Date.from(Instant.now().plus(Duration.ofMinutes(2)));
        String pem = "-----BEGIN PUBLIC KEY-----\n" + Base64.getMimeEncoder().encodeToString(
                rsa.pair().getPublic().getEncoded()) + "\n-----END PUBLIC KEY-----\n";
        String valid = good(rsa);
        Map<String, String> bad = new java.util.LinkedHashMap<>();
        bad.put("expired", rsa.token(c -> c.issuer(ISSUER).audience("api").claim("scope", "read")
                .expirationTime(past)));
        bad.put("not yet valid", rsa.token(c -> c.issuer(ISSUER).audience("api").claim("scope", "read")
                .notBeforeTime(future)));
        bad.put("no expiry", rsa.token(c -> c.issuer(ISSUER).audience("api").claim("scope", "read")
                .expirationTime(null)));
        bad.put("wrong issuer", rsa.token(c -> c.issuer("https://evil.test").audience("api").claim("scope", "read")));
        bad.put("wrong audience", rsa.token(c -> c.issuer(ISSUER).audience("billing").claim("scope", "read")));
        bad.put("alg none", Jwts.unsecured(Jwts.payloadOf(valid)));
        bad.put("HS256 signed with the RSA public key", Jwts.hs256(pem.getBytes(StandardCharsets.US_ASCII),
                "rsa-1", c -> c.issuer(ISSUER).audience("api").claim("scope", "read")));
        bad.put("tampered payload", Jwts.withPayload(valid, Jwts.payloadOf(valid).replace("alice", "admin")));
        bad.put("signed by a key nobody published", Jwts.rsa("rsa-1", "forger").token(c -> c.issuer(ISSUER)
                .audience("api").claim("scope", "read")));
        bad.put("garbage", "not.a.token");
        bad.put("a header-splitting alg", Jwts.b64("{\"alg\":\"RS256\\r\\nX-Evil: 1\",\"kid\":\"rsa-1\"}") + "."
                + Jwts.b64(Jwts.payloadOf(valid)) + ".c2ln");
        for (Map.Entry<String, String> e : bad.entrySet()) {
            HttpResponse<String> r = call("Bearer " + e.getValue());
            assertThat(r.statusCode()).as(e.getKey()).isEqualTo(401);
            assertThat(r.headers().firstValue("WWW-Authenticate").orElse(""))
                    .as(e.getKey()).startsWith("Bearer error=\"invalid_token\", error_description=\"");
            assertThat(r.headers().map()).as(e.getKey()).doesNotContainKey("x-evil");
        }
        assertThat(origin.requestCount()).isZero();
    }

    @Test
    void aMissingScopeIs403InsufficientScope() throws Exception {
        HttpResponse<String> r = call("Bearer " + rsa.token(c -> c.issuer(ISSUER).audience("api")
                .claim("scope", "write")));
        assertThat(r.statusCode()).isEqualTo(403);
        assertThat(r.headers().firstValue("WWW-Authenticate")).contains(
                "Bearer error=\"insufficient_scope\", error_description=\"the token lacks a required scope\", "
                        + "scope=\"read\"");
        HttpResponse<String> scp = call("Bearer " + ec.token(c -> c.issuer(ISSUER).audience("other")
                .claim("scp", List.of("read"))));
        assertThat(scp.statusCode()).isEqualTo(200);
    }

    @Test
    void twoAuthorizationFieldsAre400InvalidRequest() throws Exception {
        try (var c = gw.raw()) {
            var r = c.send("GET / HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + good(rsa)
                    + "\r\nAuthorization: Bearer " + good(ec) + "\r\n\r\n").read();
            assertThat(r.status()).isEqualTo(400);
            assertThat(r.header("WWW-Authenticate")).startsWith("Bearer error=\"invalid_request\"");
        }
    }

    @Test
    void aRotatedKeyIsPickedUpWithoutRestartAndTheRetiredOneIsRefused() throws Exception {
        assertThat(call("Bearer " + good(rsa)).statusCode()).isEqualTo(200);
        int fetchesBefore = idp.requestCount();
        SigningKey next = Jwts.rsa("rsa-2");
        published.set(Jwts.jwks(next, ec, ed));

        // The first request with the new kid waits (bounded) for the fetch it triggers, and passes.
        assertThat(call("Bearer " + good(next)).statusCode()).isEqualTo(200);
        assertThat(idp.requestCount()).isEqualTo(fetchesBefore + 1);
        HttpResponse<String> retired = call("Bearer " + good(rsa));
        assertThat(retired.statusCode()).isEqualTo(401);
        assertThat(retired.headers().firstValue("WWW-Authenticate").orElse("")).contains("unknown key id");
    }

    @Test
    void theSameTokenAgainIsServedFromTheVerifiedCacheAndStillChecksExpiry() throws Exception {
        String token = good(ec);
        for (int i = 0; i < 20; i++) {
            assertThat(call("Bearer " + token).statusCode()).isEqualTo(200);
        }
        assertThat(origin.requestCount()).isEqualTo(20);
        // A token expiring within the skew window is cached only until exp + skew: an expired one stays refused.
        String soon = ec.token(c -> c.issuer(ISSUER).audience("api").claim("scope", "read")
                .expirationTime(Date.from(Instant.now().minus(Duration.ofSeconds(31)))));
        assertThat(call("Bearer " + soon).statusCode()).isEqualTo(401);
    }
}
