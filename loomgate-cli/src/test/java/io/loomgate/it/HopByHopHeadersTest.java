package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.RawClient;
import io.loomgate.testkit.RunningGateway;
import io.loomgate.testkit.TestOrigin;
import io.loomgate.testkit.TestOrigin.Recorded;
import io.loomgate.testkit.TestOrigin.Reply;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Connection-specific fields stop at the gateway, in both directions (RFC 9110 §7.6.1). */
class HopByHopHeadersTest {

    @Test
    void requestHopByHopFieldsAreRemoved() throws Exception {
        try (TestOrigin origin = new TestOrigin(); RunningGateway gw = RunningGateway.to(origin);
             RawClient c = gw.raw()) {
            c.send("GET / HTTP/1.1\r\nHost: h\r\nConnection: keep-alive, X-Secret-Hop\r\nX-Secret-Hop: 1\r\n"
                    + "Keep-Alive: timeout=5\r\nProxy-Connection: keep-alive\r\nTE: trailers\r\nTrailer: X-T\r\n"
                    + "Upgrade: h2c\r\nX-End-To-End: kept\r\n\r\n");
            assertThat(c.read().status()).isEqualTo(200);
            Recorded r = origin.takeRequest();
            for (String gone : List.of("Connection", "X-Secret-Hop", "Keep-Alive", "Proxy-Connection", "TE",
                    "Trailer", "Upgrade")) {
                assertThat(r.header(gone)).as(gone).isNull();
            }
            assertThat(r.header("X-End-To-End")).isEqualTo("kept");
        }
    }

    @Test
    void responseHopByHopFieldsAreRemoved() throws Exception {
        try (TestOrigin origin = new TestOrigin(); RunningGateway gw = RunningGateway.to(origin);
             RawClient c = gw.raw()) {
            origin.enqueue(Reply.raw("HTTP/1.1 200 OK", List.of("Connection: X-Origin-Hop", "X-Origin-Hop: 1",
                    "Keep-Alive: timeout=9", "Upgrade: foo", "Trailer: X-T", "X-Kept: yes", "Content-Length: 2"), "ok"));
            RawClient.Response r = c.send("GET / HTTP/1.1\r\nHost: h\r\n\r\n").read();
            assertThat(r.header("X-Origin-Hop")).isNull();
            assertThat(r.header("Keep-Alive")).isNull();
            assertThat(r.header("Upgrade")).isNull();
            assertThat(r.header("Trailer")).isNull();
            assertThat(r.header("X-Kept")).isEqualTo("yes");
            assertThat(r.bodyText()).isEqualTo("ok");
        }
    }
}
