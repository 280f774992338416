package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.RawClient;
import io.loomgate.testkit.RunningGateway;
import io.loomgate.testkit.TestOrigin;
import org.junit.jupiter.api.Test;

/**
 * The Spring Cloud Gateway filters of issue 37 part 3 that change or check the request and response heads, each on
 * a real request through the gateway to an origin.
 */
class ScgRequestFiltersTest {

    @Test
    void preserveHostHeaderSendsTheClientsHostEvenWhereTheRouteWouldNot() throws Exception {
        try (TestOrigin origin = new TestOrigin();
             RunningGateway gw = RunningGateway.to(origin, "preserve-host: false",
                     "filters: [ PreserveHostHeader ]");
             RawClient c = gw.raw()) {
            assertThat(c.send("GET /a HTTP/1.1\r\nHost: api.example.com\r\n\r\n").read().status()).isEqualTo(200);
            assertThat(origin.takeRequest().header("Host")).isEqualTo("api.example.com");
        }
        try (TestOrigin origin = new TestOrigin();
             RunningGateway gw = RunningGateway.to(origin, "preserve-host: false");
             RawClient c = gw.raw()) {
            assertThat(c.send("GET /a HTTP/1.1\r\nHost: api.example.com\r\n\r\n").read().status()).isEqualTo(200);
            assertThat(origin.takeRequest().header("Host")).isEqualTo("127.0.0.1:" + origin.port());
        }
    }
}
