package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.RawClient;
import io.loomgate.testkit.RunningGateway;
import io.loomgate.testkit.TestOrigin;
import io.loomgate.testkit.TestOrigin.Reply;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What the gateway's response head says is the gateway's own: its HTTP version (RFC 9110 §6.2) and only the framing
 * fields a status allows (RFC 9110 §8.6), whatever the origin sent.
 */
class ResponseHeadRulesTest {

    @Test
    void anHttp10OriginsResponseGoesOutAsHttp11() throws Exception {
        try (TestOrigin origin = new TestOrigin(); RunningGateway gw = RunningGateway.to(origin);
             RawClient c = gw.raw()) {
            origin.enqueue(Reply.raw("HTTP/1.0 200 OK", List.of("X-Old: yes"), "from ", "an old origin")
                    .with(TestOrigin.Effect.CLOSE_AFTER_RESPONSE));
            RawClient.Response r = c.send("GET /a HTTP/1.1\r\nHost: h\r\n\r\n").read();
            assertThat(r.statusLine()).startsWith("HTTP/1.1 200 ");
            assertThat(r.header("Transfer-Encoding")).isEqualTo("chunked");
            assertThat(r.bodyText()).isEqualTo("from an old origin");
            // the interim and final heads of the next exchange on the same connection say HTTP/1.1 too
            origin.enqueue(Reply.raw("HTTP/1.0 103 Early Hints", List.of("Link: </a.css>", "", "HTTP/1.0 200 OK",
                    "Content-Length: 2"), "ok"));
            c.send("GET /b HTTP/1.1\r\nHost: h\r\n\r\n");
            assertThat(c.read().statusLine()).startsWith("HTTP/1.1 103 ");
            RawClient.Response second = c.read();
            assertThat(second.statusLine()).startsWith("HTTP/1.1 200 ");
            assertThat(second.bodyText()).isEqualTo("ok");
        }
    }

    @Test
    void anHttp10ClientAlsoGetsHttp11() throws Exception {
        try (TestOrigin origin = new TestOrigin(); RunningGateway gw = RunningGateway.to(origin);
             RawClient c = gw.raw()) {
            origin.enqueue(Reply.raw("HTTP/1.0 200 OK", List.of("Content-Length: 2"), "ok"));
            RawClient.Response r = c.send("GET / HTTP/1.0\r\nHost: h\r\n\r\n").read();
            assertThat(r.statusLine()).startsWith("HTTP/1.1 200 ");
            assertThat(r.bodyText()).isEqualTo("ok");
        }
    }

    @Test
    void noContentLosesTheContentLengthTheOriginGaveIt() throws Exception {
        try (TestOrigin origin = new TestOrigin(); RunningGateway gw = RunningGateway.to(origin);
             RawClient c = gw.raw()) {
            origin.enqueue(Reply.raw("HTTP/1.1 204 No Content", List.of("Content-Length: 7", "X-Kept: 1")));
            RawClient.Response r = c.send("DELETE /x HTTP/1.1\r\nHost: h\r\n\r\n").read();
            assertThat(r.status()).isEqualTo(204);
            assertThat(r.header("Content-Length")).isNull();
            assertThat(r.header("Transfer-Encoding")).isNull();
            assertThat(r.header("X-Kept")).isEqualTo("1");
            assertThat(c.send("GET /next HTTP/1.1\r\nHost: h\r\n\r\n").read().bodyText())
                    .isEqualTo("hello from origin");
        }
    }

    @Test
    void notModifiedKeepsItsContentLength() throws Exception {
        // RFC 9110 §8.6: a 304 may say the length the selected representation would have had.
        try (TestOrigin origin = new TestOrigin(); RunningGateway gw = RunningGateway.to(origin);
             RawClient c = gw.raw()) {
            origin.enqueue(Reply.raw("HTTP/1.1 304 Not Modified", List.of("Content-Length: 1234", "ETag: \"v\"")));
            RawClient.Response r = c.send("GET /x HTTP/1.1\r\nHost: h\r\n\r\n").read();
            assertThat(r.status()).isEqualTo(304);
            assertThat(r.header("Content-Length")).isEqualTo("1234");
        }
    }
}
