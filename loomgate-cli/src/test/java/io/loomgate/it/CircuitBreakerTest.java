package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.RunningGateway;
import io.loomgate.testkit.TestOrigin;
import io.loomgate.testkit.TestOrigin.Reply;
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
    void theFallbackRouteAnswersWhileOpen() throws Exception {
        try (TestOrigin users = new TestOrigin(); TestOrigin fallback = new TestOrigin();
             RunningGateway gw = RunningGateway.start(yaml("wait-in-open: 30s, fallbackUri: \"forward:/fallback\""),
                     Map.of("USERS", users.uri(), "FALLBACK", fallback.uri()))) {
            users.fallback(r -> Reply.status(502));
            fallback.fallback(r -> Reply.ok("cached users"));
            for (int i = 0; i < 4; i++) {
                gw.get("/users/" + i);
            }
            HttpResponse<String> r = gw.get("/users/7?x=1");
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.body()).isEqualTo("cached users");
            assertThat(fallback.takeRequest().target()).isEqualTo("/fallback?x=1");
            assertThat(users.requestCount()).isEqualTo(4);
        }
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
