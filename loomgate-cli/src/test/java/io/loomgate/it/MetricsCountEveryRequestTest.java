package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.loomgate.observe.AccessLogFormat;
import io.loomgate.testkit.PrometheusText;
import io.loomgate.testkit.RawClient;
import io.loomgate.testkit.TestOrigin;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/**
 * A known number of requests through a real gateway, then exact counters scraped from the admin listener's
 * {@code /metrics}, the routes at {@code /routes}, and one access-log line per request.
 */
class MetricsCountEveryRequestTest {
    private static final String ORIGIN_BODY = "hello from origin";

    @Test
    void countersMatchTheRequestsSent() throws Exception {
        try (TestOrigin origin = new TestOrigin();
             ObservedGateway gw = new ObservedGateway(origin.port(), AccessLogFormat.JSON, "users", "/users",
                     "orders", "/orders")) {
            long notFoundBytes = 0;
            try (RawClient client = new RawClient(gw.port())) {
                for (int i = 0; i < 5; i++) {
                    client.send("GET /users/" + i + " HTTP/1.1\r\nHost: t\r\n\r\n");
                    assertThat(client.read().status()).isEqualTo(200);
                }
                for (int i = 0; i < 2; i++) {
                    client.send("POST /users HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\n\r\nhello");
                    assertThat(client.read().status()).isEqualTo(200);
                }
                for (int i = 0; i < 3; i++) {
                    client.send("GET /nowhere HTTP/1.1\r\nHost: t\r\n\r\n");
                    RawClient.Response notFound = client.read();
                    assertThat(notFound.status()).isEqualTo(404);
                    notFoundBytes += notFound.body().length;
                }
                client.send("HEAD /nowhere HTTP/1.1\r\nHost: t\r\n\r\n");
                assertThat(client.read("HEAD").status()).isEqualTo(404); // its body is not written: 0 bytes
                PrometheusText open = scrape(gw);
                assertThat(open.value("loomgate_client_connections")).isEqualTo(1);
            }

            PrometheusText s = scrape(gw);
            assertThat(s.value("loomgate_requests_total", "route=users", "method=GET", "status=2xx")).isEqualTo(5);
            assertThat(s.value("loomgate_requests_total", "route=users", "method=POST", "status=2xx")).isEqualTo(2);
            assertThat(s.value("loomgate_requests_total", "route=unmatched", "method=GET", "status=4xx"))
                    .isEqualTo(3);
            assertThat(s.value("loomgate_request_duration_seconds_count", "route=users")).isEqualTo(7);
            assertThat(s.value("loomgate_upstream_duration_seconds_count", "route=users")).isEqualTo(7);
            assertThat(s.value("loomgate_request_duration_seconds_count", "route=orders")).isZero();
            assertThat(s.value("loomgate_request_body_bytes_total", "route=users")).isEqualTo(10);
            assertThat(s.value("loomgate_response_body_bytes_total", "route=users"))
                    .isEqualTo(7 * ORIGIN_BODY.length());
            assertThat(notFoundBytes).as("the gateway's 404 pages").isPositive();
            assertThat(s.value("loomgate_response_body_bytes_total", "route=unmatched"))
                    .as("the gateway's own answers count the body bytes they wrote (session 56: 0)")
                    .isEqualTo(notFoundBytes);
            assertThat(s.value("loomgate_route_in_flight", "route=users")).isZero();
            assertThat(s.value("loomgate_exchange_failures_total", "route=unmatched", "kind=no_route")).isEqualTo(4);
            double fresh = s.value("loomgate_upstream_acquired_total", "reused=false", "upstream=users");
            double reused = s.value("loomgate_upstream_acquired_total", "reused=true", "upstream=users");
            assertThat(fresh + reused).isEqualTo(7);
            assertThat(s.value("loomgate_upstream_connect_seconds_count",
                    "endpoint=127.0.0.1:" + origin.port())).isEqualTo(fresh);
            assertThat(s.value("loomgate_upstream_reuse_ratio", "upstream=users")).isEqualTo(reused / 7);
            assertThat(fresh).isEqualTo(origin.connectionCount());

            awaitTrue(() -> scrape(gw).value("loomgate_client_connections") == 0, "the client connection closed");
            PrometheusText after = scrape(gw);
            assertThat(after.value("loomgate_upstream_connections", "state=in_use", "upstream=users")).isZero();
            assertThat(after.value("loomgate_upstream_connections", "state=idle", "upstream=users")).isEqualTo(fresh);

            awaitTrue(() -> gw.accessLines.size() == 11, "11 access-log lines");
            ObjectMapper json = new ObjectMapper();
            assertThat(gw.accessLines.stream().filter(l -> l.contains("\"loomgate.route\":\"users\"")).count()).isEqualTo(7);
            assertThat(gw.accessLines.stream().filter(l -> l.contains("\"http.request.method\":\"HEAD\"")))
                    .singleElement().asString().contains("\"http.response.body.bytes\":0");
            JsonNode first = json.readTree(gw.accessLines.get(0));
            assertThat(first.get("url.path").asText()).isEqualTo("/users/0");
            assertThat(first.get("trace.id").asText()).matches("[0-9a-f]{32}");
            assertThat(first.get("span.id").asText()).matches("[0-9a-f]{16}");
            assertThat(after.value("loomgate_access_log_dropped_total")).isZero();

            JsonNode routes = json.readTree(gw.admin("/routes").body());
            assertThat(routes.get(0).get("id").asText()).isEqualTo("users");
            assertThat(routes.get(0).get("counters").get("requests").asLong()).isEqualTo(7);
            assertThat(routes.get(0).get("endpoints").get(0).get("endpoint").asText())
                    .isEqualTo("127.0.0.1:" + origin.port());
            assertThat(gw.admin("/health/ready").statusCode()).isEqualTo(200);
        }
    }

    /**
     * An exchange whose client left before any answer: the access log writes 499 and the failure kind (session 60);
     * the admin's recent errors ({@code /api/stats}, the dashboard's table) say the same. Until session 61 they
     * showed status 0, which the dashboard printed as '-'.
     */
    @Test
    void theAdminsRecentErrorsShowWhatTheAccessLogWrites() throws Exception {
        try (TestOrigin origin = new TestOrigin();
             ObservedGateway gw = new ObservedGateway(origin.port(), AccessLogFormat.JSON, "users", "/users")) {
            try (RawClient client = new RawClient(gw.port())) { // 3 of the 10 bytes declared, then it leaves
                client.send("POST /users/upload HTTP/1.1\r\nHost: t\r\nContent-Length: 10\r\n\r\nhel");
            }
            awaitTrue(() -> gw.accessLines.size() == 1, "the upload's access-log line");
            client404(gw); // after it, so that the admin's newest-first order is known
            awaitTrue(() -> gw.accessLines.size() == 2, "2 access-log lines");
            ObjectMapper json = new ObjectMapper();
            JsonNode line = gw.accessLines.stream().map(l -> read(json, l))
                    .filter(l -> l.path("url.path").asText().equals("/users/upload")).findFirst().orElseThrow();
            assertThat(line.path("http.response.status_code").asInt()).isEqualTo(499);
            assertThat(line.path("loomgate.failure").asText()).isEqualTo("client_aborted");

            JsonNode errors = json.readTree(gw.admin("/api/stats").body()).get("recentErrors");
            assertThat(errors).hasSize(2); // newest first: the 404, then the upload
            assertThat(errors.get(0).get("kind").asText()).isEqualTo("no_route");
            assertThat(errors.get(0).get("status").asInt()).isEqualTo(404);
            JsonNode left = errors.get(1);
            assertThat(left.get("target").asText()).isEqualTo("/users/upload");
            assertThat(left.get("kind").asText()).as("the access line's failure kind")
                    .isEqualTo(line.path("loomgate.failure").asText());
            assertThat(left.get("status").asInt()).as("the access line's status (session 60's 499), not 0")
                    .isEqualTo(line.path("http.response.status_code").asInt());
        }
    }

    /** A request no route matches, answered 404: a recent error whose status was sent. */
    private static void client404(ObservedGateway gw) throws Exception {
        try (RawClient client = new RawClient(gw.port())) {
            client.send("GET /nowhere HTTP/1.1\r\nHost: t\r\n\r\n");
            assertThat(client.read().status()).isEqualTo(404);
        }
    }

    private static JsonNode read(ObjectMapper json, String line) {
        try {
            return json.readTree(line);
        } catch (Exception e) {
            throw new AssertionError("not JSON: " + line, e);
        }
    }

    private static PrometheusText scrape(ObservedGateway gw) {
        try {
            HttpResponse<String> r = gw.admin("/metrics");
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.headers().firstValue("Content-Type")).hasValue("text/plain; version=0.0.4; charset=utf-8");
            return new PrometheusText(r.body());
        } catch (Exception e) {
            throw new AssertionError("scraping /metrics failed", e);
        }
    }

    private static void awaitTrue(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not within 10 s: " + what);
            }
            Thread.sleep(20);
        }
    }

}
