package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.RunningGateway;
import io.loomgate.testkit.TestOrigin;
import io.loomgate.testkit.TestOrigin.Reply;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

/** Bodies stream: the client gets each piece as the origin sends it, not when the origin is done. */
class StreamingTest {

    @Test
    void serverSentEventsArriveOneByOneWhileTheOriginIsStillSending() throws Exception {
        CountDownLatch firstSeen = new CountDownLatch(1);
        try (TestOrigin origin = new TestOrigin(); RunningGateway gw = RunningGateway.to(origin)) {
            // The origin sends event 2 only after the client has read event 1. A gateway that buffered the
            // response would hold event 1 back; the origin's gate then gives up and cuts the body, and the
            // client never reads both events.
            origin.enqueue(Reply.raw("HTTP/1.1 200 OK", List.of("Content-Type: text/event-stream",
                    "Transfer-Encoding: chunked"), "f\r\ndata: event 1\n\n\r\n", "f\r\ndata: event 2\n\n\r\n",
                    "0\r\n\r\n").gatedBy(firstSeen));
            HttpResponse<InputStream> r = HttpClient.newHttpClient().send(gw.request("/events").build(),
                    HttpResponse.BodyHandlers.ofInputStream());
            BufferedReader lines = new BufferedReader(new InputStreamReader(r.body(), StandardCharsets.UTF_8));
            assertThat(lines.readLine()).isEqualTo("data: event 1");
            firstSeen.countDown();
            assertThat(lines.readLine()).isEmpty();
            assertThat(lines.readLine()).isEqualTo("data: event 2");
            assertThat(r.headers().firstValue("Content-Type")).hasValue("text/event-stream");
        }
    }

    @Test
    void aLongPollAnswerIsFlushedAsSoonAsItArrives() throws Exception {
        CountDownLatch seen = new CountDownLatch(1);
        try (TestOrigin origin = new TestOrigin(); RunningGateway gw = RunningGateway.to(origin)) {
            origin.enqueue(Reply.raw("HTTP/1.1 200 OK", List.of("Content-Length: 10"), "first", "-last").gatedBy(seen));
            HttpResponse<InputStream> r = HttpClient.newHttpClient().send(gw.request("/poll").build(),
                    HttpResponse.BodyHandlers.ofInputStream());
            InputStream body = r.body();
            assertThat(new String(body.readNBytes(5), StandardCharsets.US_ASCII)).isEqualTo("first");
            seen.countDown();
            assertThat(new String(body.readAllBytes(), StandardCharsets.US_ASCII)).isEqualTo("-last");
        }
    }
}
