package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.RawClient;
import io.loomgate.testkit.RunningGateway;
import io.loomgate.testkit.TestOrigin;
import io.loomgate.testkit.TestOrigin.Reply;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * An origin body that breaks its framing before a byte of the response reached the client gets the client a 502,
 * not a bare close. (Once bytes went out the connection is aborted instead, so a cut body never looks complete:
 * UpstreamFailureTest.)
 */
class MalformedOriginBodyTest {

    @Test
    void aMalformedFirstChunkLineIsA502() throws Exception {
        try (TestOrigin origin = new TestOrigin(); RunningGateway gw = RunningGateway.to(origin);
             RawClient c = gw.raw()) {
            origin.enqueue(Reply.raw("HTTP/1.1 200 OK", List.of("Transfer-Encoding: chunked", "X-Origin: 1"),
                    "zz\r\nabc\r\n0\r\n\r\n"));
            RawClient.Response r = c.send("GET / HTTP/1.1\r\nHost: h\r\n\r\n").read();
            assertThat(r.status()).isEqualTo(502);
            assertThat(r.header("X-Origin")).isNull();
            assertThat(r.complete()).isTrue();
        }
    }
}
