package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.RawClient;
import io.loomgate.testkit.RunningGateway;
import io.loomgate.testkit.TestOrigin;
import io.loomgate.testkit.TestOrigin.Reply;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A response transfer coding other than chunked (which the client never asked for: the gateway does not forward TE)
 * is answered 502, as nginx does: re-framing it as chunked would drop the coding's label and hand the client bytes
 * it cannot decode.
 */
class ResponseTransferCodingTest {

    @Test
    void aCodingOtherThanChunkedIsA502() throws Exception {
        try (TestOrigin origin = new TestOrigin(); RunningGateway gw = RunningGateway.to(origin);
             RawClient c = gw.raw()) {
            origin.enqueue(Reply.raw("HTTP/1.1 200 OK", List.of("Transfer-Encoding: gzip"), "\u001f\u008b binary")
                    .with(TestOrigin.Effect.CLOSE_AFTER_RESPONSE));
            RawClient.Response r = c.send("GET / HTTP/1.1\r\nHost: h\r\n\r\n").read();
            assertThat(r.status()).isEqualTo(502);
        }
    }

    @Test
    void aCodingBeforeChunkedIsA502Too() throws Exception {
        try (TestOrigin origin = new TestOrigin(); RunningGateway gw = RunningGateway.to(origin);
             RawClient c = gw.raw()) {
            origin.enqueue(Reply.raw("HTTP/1.1 200 OK", List.of("Transfer-Encoding: gzip, chunked"),
                    "3\r\nabc\r\n0\r\n\r\n"));
            RawClient.Response r = c.send("GET / HTTP/1.1\r\nHost: h\r\n\r\n").read();
            assertThat(r.status()).isEqualTo(502);
            // the client's connection is still good for the next request
            assertThat(c.send("GET /next HTTP/1.1\r\nHost: h\r\n\r\n").read().bodyText())
                    .isEqualTo("hello from origin");
        }
    }
}
