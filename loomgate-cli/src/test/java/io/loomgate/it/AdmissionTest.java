package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.RawClient;
import io.loomgate.testkit.RunningGateway;
import io.loomgate.testkit.TestOrigin;
import io.loomgate.testkit.TestOrigin.Reply;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

/** A route's max-in-flight turns overload into fast 503s with Retry-After instead of a growing queue. */
class AdmissionTest {

    @Test
    void requestsOverMaxInFlightGet503WithRetryAfter() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        try (TestOrigin origin = new TestOrigin();
             RunningGateway gw = RunningGateway.to(origin, "max-in-flight: 1", "queue-timeout: 100ms");
             RawClient first = gw.raw(); RawClient second = gw.raw()) {
            // The first request holds the route's only slot: its body is gated until the test releases it.
            origin.enqueue(Reply.raw("HTTP/1.1 200 OK", List.of("Content-Length: 4"), "he", "ld").gatedBy(release));
            first.send("GET /hold HTTP/1.1\r\nHost: h\r\n\r\n");
            origin.takeRequest(); // the slot is taken once the origin has the request
            RawClient.Response r = second.send("GET /more HTTP/1.1\r\nHost: h\r\n\r\n").read();
            assertThat(r.status()).isEqualTo(503);
            assertThat(r.header("Retry-After")).isEqualTo("1");
            assertThat(r.bodyText()).contains("at capacity").doesNotContain("max-in-flight");
            release.countDown();
            assertThat(first.read().bodyText()).isEqualTo("held");
            // the slot is free again
            assertThat(second.send("GET /after HTTP/1.1\r\nHost: h\r\n\r\n").read().status()).isEqualTo(200);
        }
    }
}
