package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.RawClient;
import io.loomgate.testkit.RunningGateway;
import io.loomgate.testkit.TestOrigin;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The same gateway runs on a fixed pool of platform threads, with the pool's classic limit visible. */
class ThreadModelTest {

    @Test
    void aPlatformPoolServesRequestsAndHoldsAThreadPerKeepAliveConnection() throws Exception {
        String yaml = "server:\n  address: 127.0.0.1\n  port: 0\n  threads: platform\n  platform-threads: 1\n"
                + "admin:\n  port: 0\nroutes:\n  - id: main\n    uri: ${ORIGIN}\n    predicates: [ \"Path=/**\" ]\n";
        try (TestOrigin origin = new TestOrigin();
             RunningGateway gw = RunningGateway.start(yaml, Map.of("ORIGIN", origin.uri()))) {
            try (RawClient first = gw.raw(); RawClient second = gw.raw()) {
                assertThat(first.send("GET /a HTTP/1.1\r\nHost: h\r\n\r\n").read().status()).isEqualTo(200);
                // The one platform thread is held by the first (idle, keep-alive) connection: the second waits.
                second.send("GET /b HTTP/1.1\r\nHost: h\r\n\r\n");
                second.socket().setSoTimeout(300);
                assertThat(second.isClosedByPeer()).isFalse(); // timed out waiting: not served, not refused
                first.close();
                second.socket().setSoTimeout(10_000);
                assertThat(second.read().status()).isEqualTo(200);
            }
            assertThat(origin.received()).extracting(TestOrigin.Recorded::target).containsExactly("/a", "/b");
        }
    }
}
