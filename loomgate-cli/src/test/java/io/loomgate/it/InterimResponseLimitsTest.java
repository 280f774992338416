package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.RawClient;
import io.loomgate.testkit.RunningGateway;
import io.loomgate.testkit.TestOrigin;
import io.loomgate.testkit.TestOrigin.Reply;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Informational responses (1xx) are relayed, but at most 32 per request, and they do not hold off the route's
 * timeout: an origin that sends 102 Processing forever gets the client a 504 when the timeout runs out, counted
 * from when the request was sent.
 */
class InterimResponseLimitsTest {

    @Test
    void tooManyInterimResponsesAreA502() throws Exception {
        try (TestOrigin origin = new TestOrigin(); RunningGateway gw = RunningGateway.to(origin);
             RawClient c = gw.raw()) {
            List<String> lines = new ArrayList<>();
            for (int i = 0; i < 200; i++) {
                lines.add("");
                lines.add("HTTP/1.1 102 Processing");
            }
            lines.add("");
            lines.add("HTTP/1.1 200 OK");
            lines.add("Content-Length: 2");
            origin.enqueue(Reply.raw("HTTP/1.1 102 Processing", lines, "ok"));
            c.send("GET / HTTP/1.1\r\nHost: h\r\n\r\n");
            int interim = 0;
            RawClient.Response r = c.read();
            while (r.status() == 102) {
                interim++;
                r = c.read();
            }
            assertThat(r.status()).isEqualTo(502);
            assertThat(interim).isLessThanOrEqualTo(32);
        }
    }

    @Test
    void interimResponsesDoNotExtendTheRouteTimeout() throws Exception {
        try (TestOrigin origin = new TestOrigin(); RunningGateway gw = RunningGateway.to(origin, "timeout: 1s");
             RawClient c = gw.raw()) {
            List<String> pieces = new ArrayList<>();
            for (int i = 0; i < 16; i++) {
                pieces.add("HTTP/1.1 102 Processing\r\n\r\n");
            }
            pieces.add("HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nlate");
            // a 102 every 400 ms: each arrives well within the timeout, the final answer only after about 6 s
            origin.enqueue(Reply.raw("HTTP/1.1 102 Processing", List.of(), pieces.toArray(String[]::new))
                    .piecesEvery(Duration.ofMillis(400)));
            c.send("GET / HTTP/1.1\r\nHost: h\r\n\r\n");
            RawClient.Response r = c.read();
            while (r.status() == 102) {
                r = c.read();
            }
            assertThat(r.status()).isEqualTo(504);
        }
    }
}
