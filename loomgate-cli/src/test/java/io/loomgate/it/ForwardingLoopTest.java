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
 * heap reached the memory gate, which then refused every new connection for 30 s (session 59, HTTP/1.1). Each pass
 * appends this gateway instance's random id to CDN-Loop (RFC 8586), so the first pass that comes back answers 508 Loop
 * Detected, relayed back through the one before; the Via entries each Loomgate adds still bound a loop through other
 * Loomgates (the tenth is refused).
 */
class ForwardingLoopTest {

    @Test
    void aRouteBackToTheGatewayItselfIsAnswered508AtItsFirstReturn() throws Exception {
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
                TestOrigin.Recorded got = origin.takeRequest();
                assertThat(got.header("Via")).isEqualTo(nine + ", 1.1 loomgate");
                assertThat(got.header("CDN-Loop")).matches("loomgate; id=[A-Za-z0-9_-]{16}");
                r = c.send("GET /chain/b HTTP/1.1\r\nHost: h\r\nVia: " + nine + ", 2 loomgate\r\n\r\n").read();
                assertThat(r.status()).as("the tenth").isEqualTo(508);
            }
            assertThat(origin.requestCount()).isEqualTo(1);
        }
    }

    /**
     * On a fixed pool of four threads each pass holds one while it waits for the next: with the Via count alone the
     * fifth pass never got a thread, the client got 504 after the route's timeout and every other client of the
     * listener waited as long (session 59, combo10b). With the instance's id the second pass answers at once.
     */
    @Test
    void onAPoolOfFourThreadsTheLoopIsAnsweredAtOnceAndABystanderIsServed() throws Exception {
        try (TestOrigin origin = new TestOrigin();
             RunningGateway gw = FreePorts.start(port -> RunningGateway.start("server:\n  address: 127.0.0.1\n"
                     + "  port: " + port + "\n  threads: platform:4\n  max-connections: 40\nadmin:\n  port: 0\n"
                     + "routes:\n"
                     + "  - id: loop-h1\n    uri: http://127.0.0.1:" + port + "\n    predicates: [ \"Path=/h1/**\" ]\n"
                     + "  - id: loop-h2c\n    uri: h2c://127.0.0.1:" + port + "\n    predicates: [ \"Path=/h2c/**\" ]\n"
                     + "  - id: plain\n    uri: ${ORIGIN}\n    predicates: [ \"Path=/plain/**\" ]\n",
                     Map.of("ORIGIN", origin.uri())))) {
            for (String path : new String[] {"/h1/x", "/h2c/x"}) {
                // the loop's request first, its answer read after a bystander's: before, the bystander's read timed
                // out (RawClient: 10 s) behind the loop that held the pool
                try (RawClient looping = gw.raw(); RawClient bystander = gw.raw()) {
                    looping.send("GET " + path + " HTTP/1.1\r\nHost: h\r\n\r\n");
                    RawClient.Response b = bystander.send("GET /plain/" + path.substring(1, 3)
                            + " HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n").read();
                    assertThat(b.status()).as("bystander beside " + path).isEqualTo(200);
                    RawClient.Response r = looping.read();
                    assertThat(r.status()).as(path).isEqualTo(508);
                    assertThat(r.bodyText()).as(path).contains("forwarding loop");
                }
            }
            assertThat(origin.requestCount()).isEqualTo(2);
        }
    }

    /** Two gateway instances in a chain (here in one JVM) carry two different ids: no false 508. */
    @Test
    void aChainOfTwoGatewaysIsNotTakenForALoop() throws Exception {
        try (TestOrigin origin = new TestOrigin();
             RunningGateway inner = RunningGateway.start("server:\n  address: 127.0.0.1\n  port: 0\nadmin:\n"
                     + "  port: 0\nroutes:\n  - id: to-origin\n    uri: ${ORIGIN}\n    predicates: [ \"Path=/**\" ]\n",
                     Map.of("ORIGIN", origin.uri()));
             RunningGateway outer = RunningGateway.start("server:\n  address: 127.0.0.1\n  port: 0\nadmin:\n"
                     + "  port: 0\nroutes:\n  - id: to-inner\n    uri: ${INNER}\n    predicates: [ \"Path=/**\" ]\n",
                     Map.of("INNER", "http://127.0.0.1:" + inner.port()));
             RawClient c = outer.raw()) {
            RawClient.Response r = c.send("GET /a HTTP/1.1\r\nHost: h\r\nCDN-Loop: edge; id=z\r\n\r\n").read();
            assertThat(r.status()).isEqualTo(200);
            TestOrigin.Recorded got = origin.takeRequest();
            assertThat(got.header("Via")).isEqualTo("1.1 loomgate, 1.1 loomgate");
            String loop = got.header("CDN-Loop");
            assertThat(loop).matches("edge; id=z, loomgate; id=[A-Za-z0-9_-]{16}, loomgate; id=[A-Za-z0-9_-]{16}");
            String[] entries = loop.split(", ");
            assertThat(entries[1]).isNotEqualTo(entries[2]);
        }
    }
}
