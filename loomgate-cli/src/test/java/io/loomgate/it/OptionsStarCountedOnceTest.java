package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.observe.AccessLogFormat;
import io.loomgate.testkit.PrometheusText;
import io.loomgate.testkit.RawClient;
import io.loomgate.testkit.TestOrigin;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * {@code OPTIONS *} is answered by the gateway itself, without a route; like every other exchange it is counted once
 * in {@code loomgate_requests_total} and logged once (it used to be reported to the listeners twice).
 */
class OptionsStarCountedOnceTest {

    @Test
    void optionsStarIsCountedAndLoggedOnce() throws Exception {
        try (TestOrigin origin = new TestOrigin();
             ObservedGateway gw = new ObservedGateway(origin.port(), AccessLogFormat.JSON, "users", "/users")) {
            try (RawClient client = new RawClient(gw.port())) {
                client.send("OPTIONS * HTTP/1.1\r\nHost: t\r\n\r\n");
                assertThat(client.read().status()).isEqualTo(200);
                client.send("GET /users/1 HTTP/1.1\r\nHost: t\r\n\r\n"); // a marker logged after the OPTIONS
                assertThat(client.read().status()).isEqualTo(200);
            }
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (gw.accessLines.stream().noneMatch(l -> l.contains("/users/1")) && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            PrometheusText s = new PrometheusText(gw.admin("/metrics").body());
            assertThat(s.value("loomgate_requests_total", "route=unmatched", "method=OPTIONS", "status=2xx"))
                    .isEqualTo(1);
            assertThat(gw.accessLines).hasSize(2);
            assertThat(gw.accessLines.stream().filter(l -> l.contains("\"http.request.method\":\"OPTIONS\"")).count())
                    .isEqualTo(1);
        }
    }
}
