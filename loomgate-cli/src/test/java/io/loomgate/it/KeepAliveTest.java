package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.RawClient;
import io.loomgate.testkit.RunningGateway;
import io.loomgate.testkit.TestOrigin;
import io.loomgate.testkit.TestOrigin.Reply;
import org.junit.jupiter.api.Test;

/** Persistent connections on both sides, and pipelined requests answered in order. */
class KeepAliveTest {

    @Test
    void oneClientConnectionCarriesManyRequestsOverOneUpstreamConnection() throws Exception {
        try (TestOrigin origin = new TestOrigin(); RunningGateway gw = RunningGateway.to(origin);
             RawClient c = gw.raw()) {
            for (int i = 0; i < 5; i++) {
                RawClient.Response r = c.send("GET /n/" + i + " HTTP/1.1\r\nHost: h\r\n\r\n").read();
                assertThat(r.status()).isEqualTo(200);
                assertThat(r.header("Connection")).isNull();
            }
            assertThat(origin.connectionCount()).isEqualTo(1);
            assertThat(origin.received()).extracting(TestOrigin.Recorded::indexOnConnection)
                    .containsExactly(0, 1, 2, 3, 4);
        }
    }

    @Test
    void pipelinedRequestsAreAnsweredInOrder() throws Exception {
        try (TestOrigin origin = new TestOrigin(); RunningGateway gw = RunningGateway.to(origin);
             RawClient c = gw.raw()) {
            origin.fallback(r -> Reply.ok("answer to " + r.target()));
            c.send("GET /first HTTP/1.1\r\nHost: h\r\n\r\n"
                    + "POST /second HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\nhello"
                    + "GET /third HTTP/1.1\r\nHost: h\r\n\r\n");
            assertThat(c.read().bodyText()).isEqualTo("answer to /first");
            assertThat(c.read().bodyText()).isEqualTo("answer to /second");
            assertThat(c.read().bodyText()).isEqualTo("answer to /third");
            assertThat(origin.received().get(1).bodyText()).isEqualTo("hello");
        }
    }

    @Test
    void connectionCloseFromTheClientIsHonoured() throws Exception {
        try (TestOrigin origin = new TestOrigin(); RunningGateway gw = RunningGateway.to(origin);
             RawClient c = gw.raw()) {
            RawClient.Response r = c.send("GET / HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n").read();
            assertThat(r.header("Connection")).isEqualTo("close");
            assertThat(c.isClosedByPeer()).isTrue();
        }
    }

    @Test
    void anOriginThatClosesAfterItsResponseIsNotReused() throws Exception {
        try (TestOrigin origin = new TestOrigin(); RunningGateway gw = RunningGateway.to(origin);
             RawClient c = gw.raw()) {
            origin.enqueue(Reply.raw("HTTP/1.1 200 OK", java.util.List.of("Connection: close", "Content-Length: 1"),
                    "a").with(TestOrigin.Effect.CLOSE_AFTER_RESPONSE));
            assertThat(c.send("GET /1 HTTP/1.1\r\nHost: h\r\n\r\n").read().bodyText()).isEqualTo("a");
            assertThat(c.send("GET /2 HTTP/1.1\r\nHost: h\r\n\r\n").read().status()).isEqualTo(200);
            assertThat(origin.connectionCount()).isEqualTo(2);
        }
    }
}
