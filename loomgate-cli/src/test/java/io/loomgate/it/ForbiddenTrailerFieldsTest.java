package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.RawClient;
import io.loomgate.testkit.RunningGateway;
import io.loomgate.testkit.TestOrigin;
import io.loomgate.testkit.TestOrigin.Recorded;
import io.loomgate.testkit.TestOrigin.Reply;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Fields that framing, routing, authentication or content handling need before the body (RFC 9110 §6.5.1) are
 * not forwarded in trailers, either way: a recipient that merged them into the head would be misled. The rest pass.
 */
class ForbiddenTrailerFieldsTest {

    @Test
    void framingAndRoutingFieldsInRequestTrailersAreDropped() throws Exception {
        try (TestOrigin origin = new TestOrigin(); RunningGateway gw = RunningGateway.to(origin);
             RawClient c = gw.raw()) {
            c.send("POST /up HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n"
                    + "5\r\nhello\r\n0\r\nContent-Length: 99\r\nTransfer-Encoding: gzip\r\nHost: evil.example\r\n"
                    + "Authorization: Bearer forged\r\nX-Checksum: abc\r\n\r\n");
            assertThat(c.read().status()).isEqualTo(200);
            Recorded r = origin.takeRequest();
            assertThat(r.bodyText()).isEqualTo("hello");
            assertThat(r.trailers()).containsOnlyKeys("X-Checksum");
        }
    }

    @Test
    void framingFieldsInResponseTrailersAreDropped() throws Exception {
        try (TestOrigin origin = new TestOrigin(); RunningGateway gw = RunningGateway.to(origin);
             RawClient c = gw.raw()) {
            origin.enqueue(Reply.raw("HTTP/1.1 200 OK", List.of("Transfer-Encoding: chunked"),
                    "3\r\nabc\r\n0\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\nContent-Type: text/evil\r\n"
                            + "Set-Cookie: s=forged\r\nX-Digest: d1\r\n\r\n"));
            RawClient.Response r = c.send("GET / HTTP/1.1\r\nHost: h\r\n\r\n").read();
            assertThat(r.bodyText()).isEqualTo("abc");
            assertThat(r.complete()).isTrue();
            assertThat(r.trailers()).hasSize(1);
            assertThat(r.trailers().get(0)).containsExactly("X-Digest", "d1");
        }
    }
}
