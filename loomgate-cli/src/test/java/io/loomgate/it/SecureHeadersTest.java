package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.RunningGateway;
import io.loomgate.testkit.TestOrigin;
import io.loomgate.testkit.TestOrigin.Reply;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** SecureHeaders with Spring Cloud Gateway's defaults, each overridable or disabled, as a default filter. */
class SecureHeadersTest {

    @Test
    void everyRouteGetsTheDefaultsFromDefaultFilters() throws Exception {
        String yaml = """
                default-filters: [ SecureHeaders ]
                routes:
                  - { id: a, uri: "${ORIGIN}", predicates: [ "Path=/a/**" ] }
                  - { id: b, uri: "${ORIGIN}", predicates: [ "Path=/**" ] }
                """;
        try (TestOrigin origin = new TestOrigin(); RunningGateway gw = RunningGateway.start(yaml,
                Map.of("ORIGIN", origin.uri()))) {
            for (String path : List.of("/a/1", "/b/2")) {
                HttpResponse<String> r = gw.get(path);
                assertThat(r.headers().firstValue("X-Xss-Protection")).contains("1 ; mode=block");
                assertThat(r.headers().firstValue("Strict-Transport-Security")).contains("max-age=631138519");
                assertThat(r.headers().firstValue("X-Frame-Options")).contains("DENY");
                assertThat(r.headers().firstValue("X-Content-Type-Options")).contains("nosniff");
                assertThat(r.headers().firstValue("Referrer-Policy")).contains("no-referrer");
                assertThat(r.headers().firstValue("Content-Security-Policy").orElse(""))
                        .startsWith("default-src 'self' https:;");
                assertThat(r.headers().firstValue("X-Download-Options")).contains("noopen");
                assertThat(r.headers().firstValue("X-Permitted-Cross-Domain-Policies")).contains("none");
            }
            // A gateway-made answer (404, no route) is not a route's: no route, no route filters.
        }
    }

    @Test
    void valuesAreOverriddenDisabledOrLeftAsTheOriginSentThem() throws Exception {
        try (TestOrigin origin = new TestOrigin().fallback(r -> new Reply("HTTP/1.1 200 OK", List.of(
                "Content-Length: 2", "Referrer-Policy: same-origin"), List.of("ok".getBytes()), Duration.ZERO,
                Duration.ZERO, TestOrigin.Effect.NONE));
             RunningGateway gw = RunningGateway.to(origin, "filters:", "  - name: SecureHeaders", "    args:",
                     "      frame-options: SAMEORIGIN",
                     "      permissions-policy: \"geolocation=()\"",
                     "      disable: [ x-xss-protection, Strict-Transport-Security ]")) {
            HttpResponse<String> r = gw.get("/");
            assertThat(r.headers().firstValue("X-Frame-Options")).contains("SAMEORIGIN");
            assertThat(r.headers().firstValue("Permissions-Policy")).contains("geolocation=()");
            assertThat(r.headers().firstValue("X-Xss-Protection")).isEmpty();
            assertThat(r.headers().firstValue("Strict-Transport-Security")).isEmpty();
            assertThat(r.headers().allValues("Referrer-Policy")).containsExactly("same-origin");
            assertThat(r.headers().firstValue("X-Content-Type-Options")).contains("nosniff");
        }
    }
}
