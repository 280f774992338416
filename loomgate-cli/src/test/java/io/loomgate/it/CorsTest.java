package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.Jwts;
import io.loomgate.testkit.RunningGateway;
import io.loomgate.testkit.TestOrigin;
import io.loomgate.testkit.TestOrigin.Reply;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * CORS from the global {@code cors:} section: preflights answered by the gateway, actual requests marked for allowed
 * origins only, the origin's own CORS fields replaced by the gateway's policy, {@code Vary: Origin} always.
 */
class CorsTest {
    private static final String KEY = "web-key-0123456789abcdef";
    private TestOrigin origin;
    private RunningGateway gw;

    @BeforeEach
    void start() throws Exception {
        origin = new TestOrigin().fallback(r -> new Reply("HTTP/1.1 200 OK", List.of("Content-Length: 2",
                "Access-Control-Allow-Origin: *", "Vary: Accept-Encoding"), List.of("ok".getBytes()), Duration.ZERO,
                Duration.ZERO, TestOrigin.Effect.NONE));
        gw = RunningGateway.start("""
                cors:
                  allowed-origins: [ "https://app.example.com", "https://*.partner.test" ]
                  allowed-methods: [ GET, POST, PUT ]
                  allowed-headers: [ Content-Type, Authorization ]
                  exposed-headers: [ X-Request-Id ]
                  allow-credentials: true
                  max-age: 10m
                default-filters:
                  - name: ApiKeyAuth
                    args: { keys: { web: "sha256:${HASH}" } }
                routes:
                  - id: api
                    uri: ${ORIGIN}
                    predicates: [ "Path=/**" ]
                """, Map.of("ORIGIN", origin.uri(), "HASH", Jwts.sha256Hex(KEY).get(0)));
    }

    @AfterEach
    void stop() throws Exception {
        gw.close();
        origin.close();
    }

    private HttpResponse<String> preflight(String from, String method, String headers) throws Exception {
        HttpRequest.Builder b = gw.request("/orders").method("OPTIONS", HttpRequest.BodyPublishers.noBody())
                .header("Access-Control-Request-Method", method);
        if (headers != null) {
            b.header("Access-Control-Request-Headers", headers);
        }
        return gw.send(b.header("Origin", from));
    }

    @Test
    void anAllowedPreflightIsAnsweredByTheGateway() throws Exception {
        HttpResponse<String> r = preflight("https://app.example.com", "PUT", "content-type, authorization");
        assertThat(r.statusCode()).isEqualTo(204);
        assertThat(r.headers().firstValue("Access-Control-Allow-Origin")).contains("https://app.example.com");
        assertThat(r.headers().firstValue("Access-Control-Allow-Methods")).contains("GET, POST, PUT");
        assertThat(r.headers().firstValue("Access-Control-Allow-Headers")).contains("content-type, authorization");
        assertThat(r.headers().firstValue("Access-Control-Allow-Credentials")).contains("true");
        assertThat(r.headers().firstValue("Access-Control-Max-Age")).contains("600");
        assertThat(r.headers().allValues("Vary")).contains("Origin");
        HttpResponse<String> sub = preflight("https://eu.shop.partner.test", "GET", null);
        assertThat(sub.statusCode()).isEqualTo(204);
        assertThat(sub.headers().firstValue("Access-Control-Allow-Origin")).contains("https://eu.shop.partner.test");
        assertThat(origin.requestCount()).isZero();
    }

    @Test
    void aPreflightFromAnotherOriginOrForAnotherMethodOrHeaderIs403WithoutCorsFields() throws Exception {
        for (HttpResponse<String> r : List.of(preflight("https://evil.test", "GET", null),
                preflight("https://partner.test.evil.test", "GET", null),
                preflight("https://app.example.com", "DELETE", null),
                preflight("https://app.example.com", "POST", "X-Debug"))) {
            assertThat(r.statusCode()).isEqualTo(403);
            assertThat(r.headers().firstValue("Access-Control-Allow-Origin")).isEmpty();
            assertThat(r.headers().allValues("Vary")).contains("Origin");
        }
        assertThat(origin.requestCount()).isZero();
    }

    @Test
    void anActualRequestFromAnAllowedOriginIsMarkedAndOneFromElsewhereIsNot() throws Exception {
        HttpResponse<String> allowed = gw.send(gw.request("/orders").header("Origin", "https://app.example.com")
                .header("X-Api-Key", KEY));
        assertThat(allowed.statusCode()).isEqualTo(200);
        assertThat(allowed.headers().allValues("Access-Control-Allow-Origin")).containsExactly(
                "https://app.example.com");
        assertThat(allowed.headers().firstValue("Access-Control-Expose-Headers")).contains("X-Request-Id");
        assertThat(allowed.headers().allValues("Vary")).containsExactly("Accept-Encoding", "Origin");

        HttpResponse<String> other = gw.send(gw.request("/orders").header("Origin", "https://evil.test")
                .header("X-Api-Key", KEY));
        assertThat(other.statusCode()).isEqualTo(200); // forwarded; the browser refuses to hand it to the page
        assertThat(other.headers().firstValue("Access-Control-Allow-Origin")).isEmpty();
        assertThat(other.headers().allValues("Vary")).contains("Origin");

        HttpResponse<String> sameOrigin = gw.send(gw.request("/orders").header("X-Api-Key", KEY));
        assertThat(sameOrigin.headers().firstValue("Access-Control-Allow-Origin")).isEmpty();
        assertThat(origin.requestCount()).isEqualTo(3);
    }

    @Test
    void theGlobalPolicyRunsBeforeDefaultFiltersSoARefusalIsReadableByThePage() throws Exception {
        // The preflights above passed without a key; an actual request without one gets the 401 with CORS fields.
        HttpResponse<String> r = gw.send(gw.request("/orders").header("Origin", "https://app.example.com"));
        assertThat(r.statusCode()).isEqualTo(401);
        assertThat(r.headers().firstValue("Access-Control-Allow-Origin")).contains("https://app.example.com");
        assertThat(origin.requestCount()).isZero();
    }
}
