package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.FreePorts;
import io.loomgate.testkit.RunningGateway;
import io.loomgate.testkit.TestOrigin;
import io.loomgate.testkit.TestOrigin.Reply;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/** The CircuitBreaker filter opens on failures, answers at once while open, and closes when the upstream heals. */
class CircuitBreakerTest {

    private static String yaml(String breakerArgs) {
        return """
                routes:
                  - id: users
                    uri: ${USERS}
                    predicates: [ "Path=/users/**" ]
                    filters:
                      - name: CircuitBreaker
                        args: { name: users-cb, statusCodes: [ 500, BAD_GATEWAY ], sliding-window: 4, minimum-calls: 4,
                                failure-rate-threshold: 50, %s }
                  - id: fallback
                    uri: ${FALLBACK}
                    predicates: [ "Path=/fallback" ]
                """.formatted(breakerArgs);
    }

    @Test
    void whileOpenRequestsAreAnsweredAtOnceAndNeverReachTheUpstream() throws Exception {
        try (TestOrigin users = new TestOrigin(); TestOrigin fallback = new TestOrigin();
             RunningGateway gw = RunningGateway.start(yaml("wait-in-open: 30s"),
                     Map.of("USERS", users.uri(), "FALLBACK", fallback.uri()))) {
            users.fallback(r -> Reply.status(500));
            for (int i = 0; i < 4; i++) {
                assertThat(gw.get("/users/" + i).statusCode()).as("closed: the origin's answer").isEqualTo(500);
            }
            HttpResponse<String> open = gw.get("/users/5");
            assertThat(open.statusCode()).isEqualTo(503);
            assertThat(open.headers().firstValue("Retry-After")).hasValue("30");
            assertThat(open.body()).contains("circuit breaker is open").doesNotContain("users");
            for (int i = 0; i < 10; i++) {
                assertThat(gw.get("/users/x").statusCode()).isEqualTo(503);
            }
            assertThat(users.requestCount()).as("nothing reached the origin while open").isEqualTo(4);
        }
    }

    @Test
    void everyFailureGoesToTheFallbackRouteAndNothingReachesTheUpstreamWhileOpen() throws Exception {
        try (TestOrigin users = new TestOrigin(); TestOrigin fallback = new TestOrigin();
             RunningGateway gw = RunningGateway.start(yaml("wait-in-open: 30s, fallbackUri: \"forward:/fallback\""),
                     Map.of("USERS", users.uri(), "FALLBACK", fallback.uri()))) {
            users.fallback(r -> Reply.status(502));
            fallback.fallback(r -> Reply.ok("cached users"));
            for (int i = 0; i < 4; i++) { // a listed status goes to the fallback too, as in SCG
                HttpResponse<String> closed = gw.get("/users/" + i);
                assertThat(closed.statusCode()).isEqualTo(200);
                assertThat(closed.body()).isEqualTo("cached users");
            }
            HttpResponse<String> r = gw.get("/users/7?x=1");
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.body()).isEqualTo("cached users");
            assertThat(fallback.received()).hasSize(5);
            assertThat(fallback.received().get(4).target()).isEqualTo("/fallback?x=1");
            assertThat(users.requestCount()).as("nothing reached the origin while open").isEqualTo(4);
        }
    }

    @Test
    void theFallbackPathTakesTheMatchedRoutesVariablesAsInScg() throws Exception {
        // SCG's example: Path=/consumingServiceEndpoint/{*segments}, fallbackUri: forward:/inCaseOfFailureUseThis/{segments}
        String yaml = """
                routes:
                  - id: users
                    uri: ${USERS}
                    predicates: [ "Path=/users/{*segments}" ]
                    filters:
                      - name: CircuitBreaker
                        args: { name: users-cb, statusCodes: [ 500 ], fallbackUri: "forward:/fallback/{segments}" }
                  - id: fallback
                    uri: ${FALLBACK}
                    predicates: [ "Path=/fallback/**" ]
                """;
        try (TestOrigin users = new TestOrigin(); TestOrigin fallback = new TestOrigin();
             RunningGateway gw = RunningGateway.start(yaml, Map.of("USERS", users.uri(), "FALLBACK", fallback.uri()))) {
            users.fallback(r -> Reply.status(500));
            fallback.fallback(r -> Reply.ok("from the fallback"));
            HttpResponse<String> r = gw.get("/users/7/orders?x=1");
            assertThat(r.body()).isEqualTo("from the fallback");
            assertThat(fallback.takeRequest().target()).isEqualTo("/fallback/7/orders?x=1");
            assertThat(users.requestCount()).isEqualTo(1);
        }
    }

    @Test
    void aRefusedUpstreamGoesToTheFallbackWithTheFailureInFallbackHeaders() throws Exception {
        String yaml = """
                routes:
                  - id: users
                    uri: http://127.0.0.1:%d
                    predicates: [ "Path=/users/**" ]
                    filters:
                      - name: CircuitBreaker
                        args: { name: users-cb, fallbackUri: "forward:/fallback", wait-in-open: 30s,
                                sliding-window: 2, minimum-calls: 2 }
                  - id: fallback
                    uri: ${FALLBACK}
                    predicates: [ "Path=/fallback" ]
                    filters:
                      - name: FallbackHeaders
                        args: { executionExceptionTypeHeaderName: Test-Header }
                """.formatted(deadPort());
        try (TestOrigin fallback = new TestOrigin();
             RunningGateway gw = RunningGateway.start(yaml, Map.of("FALLBACK", fallback.uri()))) {
            fallback.fallback(r -> Reply.ok("fallback"));
            for (int i = 0; i < 2; i++) {
                HttpResponse<String> r = gw.get("/users/" + i);
                assertThat(r.statusCode()).isEqualTo(200);
                assertThat(r.body()).isEqualTo("fallback");
            }
            TestOrigin.Recorded refused = fallback.takeRequest();
            assertThat(refused.header("Test-Header")).isEqualTo("io.loomgate.proxy.ProxyFailure");
            assertThat(refused.header("Execution-Exception-Message")).contains("refused the connection");
            assertThat(refused.header("Root-Cause-Exception-Type")).isEqualTo("java.net.ConnectException");
            assertThat(refused.header("Root-Cause-Exception-Message")).isNotNull();
            fallback.takeRequest();
            assertThat(gw.get("/users/open").body()).isEqualTo("fallback");
            TestOrigin.Recorded open = fallback.takeRequest();
            assertThat(open.header("Test-Header"))
                    .isEqualTo("io.github.resilience4j.circuitbreaker.CallNotPermittedException");
            assertThat(open.header("Execution-Exception-Message")).contains("'users-cb' is OPEN");
            HttpResponse<String> direct = gw.get("/fallback");
            assertThat(direct.statusCode()).isEqualTo(200);
            assertThat(fallback.takeRequest().header("Test-Header")).as("came by itself: untouched").isNull();
        }
    }

    /**
     * A declared empty body ({@code Content-Length: 0}, as the JDK client sends for {@code POST(noBody())}) is no body
     * the failed attempt used up: the request goes to the fallback as one without a body does. Until session 61 it
     * got the failure (502), as a request whose body had streamed to the attempt.
     */
    @Test
    void aRequestWithAnEmptyBodyGoesToTheFallbackAsOneWithoutABody() throws Exception {
        String yaml = """
                routes:
                  - id: users
                    uri: http://127.0.0.1:%d
                    predicates: [ "Path=/users/**" ]
                    filters:
                      - name: CircuitBreaker
                        args: { name: users-cb, fallbackUri: "forward:/fallback", wait-in-open: 30s }
                  - id: fallback
                    uri: ${FALLBACK}
                    predicates: [ "Path=/fallback" ]
                """.formatted(deadPort());
        try (TestOrigin fallback = new TestOrigin();
             RunningGateway gw = RunningGateway.start(yaml, Map.of("FALLBACK", fallback.uri()))) {
            fallback.fallback(r -> Reply.ok("fallback"));
            HttpResponse<String> r = gw.send(gw.request("/users/logout").POST(HttpRequest.BodyPublishers.noBody()));
            assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
            assertThat(r.body()).isEqualTo("fallback");
            TestOrigin.Recorded got = fallback.takeRequest();
            assertThat(got.method()).isEqualTo("POST");
            assertThat(got.header("Content-Length")).isEqualTo("0");
            assertThat(got.body()).isEmpty();
        }
    }

    @Test
    void resumeWithoutErrorAnswersAFailureWithAnEmpty200ButNotATimeoutNorOpen() throws Exception {
        String yaml = """
                routes:
                  - id: users
                    uri: http://127.0.0.1:%d
                    predicates: [ "Path=/users/**" ]
                    filters:
                      - name: CircuitBreaker
                        args: { name: users-cb, resumeWithoutError: true, wait-in-open: 30s, sliding-window: 3,
                                minimum-calls: 3 }
                  - id: slow
                    uri: ${SLOW}
                    timeout: 300ms
                    predicates: [ "Path=/slow/**" ]
                    filters:
                      - name: CircuitBreaker
                        args: { name: slow-cb, resumeWithoutError: true }
                """.formatted(deadPort());
        try (TestOrigin slow = new TestOrigin();
             RunningGateway gw = RunningGateway.start(yaml, Map.of("SLOW", slow.uri()))) {
            slow.fallback(r -> Reply.ok("late").delayed(Duration.ofSeconds(3)));
            for (int i = 0; i < 3; i++) {
                HttpResponse<String> r = gw.get("/users/" + i);
                assertThat(r.statusCode()).as("refused, resumed without error").isEqualTo(200);
                assertThat(r.body()).isEmpty();
            }
            assertThat(gw.get("/users/open").statusCode()).as("open stays 503").isEqualTo(503);
            assertThat(gw.get("/slow/x").statusCode()).as("a timeout stays 504").isEqualTo(504);
        }
    }

    private static int deadPort() {
        return FreePorts.refused();
    }

    @Test
    void afterWaitInOpenTrialCallsCloseItAgainWhenTheUpstreamHealed() throws Exception {
        try (TestOrigin users = new TestOrigin(); TestOrigin fallback = new TestOrigin();
             RunningGateway gw = RunningGateway.start(yaml("wait-in-open: 300ms, permitted-calls-in-half-open: 2"),
                     Map.of("USERS", users.uri(), "FALLBACK", fallback.uri()))) {
            AtomicInteger status = new AtomicInteger(500);
            users.fallback(r -> Reply.status(status.get()));
            for (int i = 0; i < 4; i++) {
                gw.get("/users/" + i);
            }
            assertThat(gw.get("/users/open").statusCode()).isEqualTo(503);
            status.set(200);
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            int code;
            do { // half-open after 300 ms: the trial calls reach the healed origin
                LockSupport.parkNanos(50_000_000);
                code = gw.get("/users/trial").statusCode();
            } while (code == 503 && System.nanoTime() < deadline);
            assertThat(code).isEqualTo(200);
            for (int i = 0; i < 5; i++) {
                assertThat(gw.get("/users/again").statusCode()).as("closed again").isEqualTo(200);
            }
        }
    }
}
