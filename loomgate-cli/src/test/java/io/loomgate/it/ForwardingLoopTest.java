package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.FreePorts;
import io.loomgate.testkit.RawClient;
import io.loomgate.testkit.RunningGateway;
import io.loomgate.testkit.TestOrigin;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A route whose origin is the gateway itself forwards each request back to itself: before session 59 a new connection
 * and thread per pass, until a header grew past its limit (session 58, h2c: 2,330 passes in under a second) or the
 * heap reached the memory gate, which then refused every new connection for 30 s (session 59, HTTP/1.1). The Via
 * entries each pass adds bound it: the tenth pass answers 508 Loop Detected, relayed back through the others.
 */
class ForwardingLoopTest {

    @Test
    void aRouteBackToTheGatewayItselfIsAnswered508AfterTenPasses() throws Exception {
        try (TestOrigin origin = new TestOrigin();
             // max-connections bounds the loop of a gateway without the guard (the old behaviour): the client's
             // read then times out instead of the test's JVM filling its heap
             RunningGateway gw = FreePorts.start(port -> RunningGateway.start("server:\n  address: 127.0.0.1\n"
                     + "  port: " + port + "\n  max-connections: 40\nadmin:\n  port: 0\nroutes:\n"
                     + "  - id: loop-h1\n    uri: http://127.0.0.1:" + port + "\n    predicates: [ \"Path=/h1/**\" ]\n"
                     + "  - id: loop-h2c\n    uri: h2c://127.0.0.1:" + port + "\n    predicates: [ \"Path=/h2c/**\" ]\n"
                     + "  - id: chain\n    uri: ${ORIGIN}\n    predicates: [ \"Path=/chain/**\" ]\n",
                     Map.of("ORIGIN", origin.uri())))) {
            for (String path : new String[] {"/h1/x", "/h2c/x"}) {
                try (RawClient c = gw.raw()) {
                    RawClient.Response r = c.send("GET " + path + " HTTP/1.1\r\nHost: h\r\n\r\n").read();
                    assertThat(r.status()).as(path).isEqualTo(508);
                    assertThat(r.bodyText()).as(path).contains("forwarding loop");
                }
            }
            // A chain of gateways under the bound passes: nine Loomgate entries before this one (any protocol).
            String nine = "1.1 loomgate, 2 loomgate, 1.1 loomgate (x), 1.0 loomgate, 1.1 loomgate, 1.1 nginx, "
                    + "1.1 loomgate, 1.1 loomgate, 2 loomgate, 1.1 loomgate";
            try (RawClient c = gw.raw()) {
                RawClient.Response r = c.send("GET /chain/a HTTP/1.1\r\nHost: h\r\nVia: " + nine + "\r\n\r\n").read();
                assertThat(r.status()).isEqualTo(200);
                assertThat(origin.takeRequest().header("Via")).isEqualTo(nine + ", 1.1 loomgate");
                r = c.send("GET /chain/b HTTP/1.1\r\nHost: h\r\nVia: " + nine + ", 2 loomgate\r\n\r\n").read();
                assertThat(r.status()).as("the tenth").isEqualTo(508);
            }
            assertThat(origin.requestCount()).isEqualTo(1);
        }
    }
}
