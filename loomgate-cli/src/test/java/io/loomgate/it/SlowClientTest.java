package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.RawClient;
import io.loomgate.testkit.RunningGateway;
import io.loomgate.testkit.TestOrigin;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A client that trickles its head is cut off at the header deadline, and holds only its own thread meanwhile. */
class SlowClientTest {
    private static final String YAML = "server:\n  address: 127.0.0.1\n  port: 0\n  header-timeout: 500ms\n"
            + "  idle-timeout: 700ms\nadmin:\n  port: 0\n"
            + "routes:\n  - id: main\n    uri: ${ORIGIN}\n    predicates: [ \"Path=/**\" ]\n";

    @Test
    void aTricklingClientGets408WhileOthersAreServed() throws Exception {
        try (TestOrigin origin = new TestOrigin();
             RunningGateway gw = RunningGateway.start(YAML, Map.of("ORIGIN", origin.uri()));
             RawClient slow = gw.raw()) {
            String head = "GET /slow HTTP/1.1\r\nHost: h\r\nX-Pad: " + "p".repeat(40) + "\r\n\r\n";
            // One byte every 100 ms: each read is well within any per-read timeout, but the whole head is not
            // within the 500 ms header deadline.
            Thread trickler = Thread.ofVirtual().start(() -> {
                try {
                    for (int i = 0; i < head.length(); i++) {
                        slow.send(head.substring(i, i + 1));
                        Thread.sleep(100);
                    }
                } catch (Exception e) {
                    // the gateway closed the connection: expected
                }
            });
            // Meanwhile another client is served normally.
            assertThat(gw.get("/fast").statusCode()).isEqualTo(200);
            RawClient.Response r = slow.read();
            assertThat(r.status()).isEqualTo(408);
            trickler.interrupt();
            assertThat(origin.received()).extracting(TestOrigin.Recorded::target).containsExactly("/fast");
        }
    }

    @Test
    void anIdleKeepAliveConnectionIsClosedAfterTheIdleTimeout() throws Exception {
        try (TestOrigin origin = new TestOrigin();
             RunningGateway gw = RunningGateway.start(YAML, Map.of("ORIGIN", origin.uri()));
             RawClient c = gw.raw()) {
            assertThat(c.send("GET / HTTP/1.1\r\nHost: h\r\n\r\n").read().status()).isEqualTo(200);
            // RawClient's read timeout is 10 s; the gateway's idle timeout of 700 ms closes it well before.
            assertThat(c.isClosedByPeer()).isTrue();
        }
    }
}
