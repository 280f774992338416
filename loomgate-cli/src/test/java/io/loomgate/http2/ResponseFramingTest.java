package io.loomgate.http2;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.RunningGateway;
import io.loomgate.testkit.TestOrigin;
import io.loomgate.testkit.TestOrigin.Reply;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The frames of a relayed response: a short fixed-length body leaves in one DATA frame that ends the stream (not its
 * bytes, then an empty END_STREAM frame: a second frame and often a second write), whatever its size; and the
 * content-length an HTTP/2 client gets is one field that matches its body, or none where RFC 9110 §8.6 forbids it.
 */
class ResponseFramingTest {

    @Test
    void aShortFixedLengthBodyIsOneDataFrameThatEndsTheStream() throws Exception {
        try (TestOrigin origin = new TestOrigin();
             RunningGateway gw = RunningGateway.start(H2cGatewayYaml.yaml(), Map.of("ORIGIN", origin.uri()));
             RawH2Client c = new RawH2Client(gw.port())) {
            int stream = 1;
            for (int size : new int[] {1, 12, 1023, 1024, 1025, 5000}) {
                String body = "x".repeat(size);
                origin.enqueue(Reply.raw("HTTP/1.1 200 OK", List.of("Content-Length: " + size), body));
                c.get(stream, "/sized");
                List<RawH2Client.Frame> frames = new ArrayList<>();
                RawH2Client.Frame f;
                do {
                    int s = stream;
                    f = c.await(x -> x.stream() == s && (x.type() == Frames.HEADERS || x.type() == Frames.DATA));
                    frames.add(f);
                } while (!f.endStream());
                assertThat(frames).as("frames of a %d-byte body", size).hasSize(2);
                assertThat(frames.get(0).type()).isEqualTo(Frames.HEADERS);
                assertThat(frames.get(0).endStream()).isFalse();
                assertThat(frames.get(1).type()).isEqualTo(Frames.DATA);
                assertThat(new String(frames.get(1).payload(), StandardCharsets.US_ASCII)).isEqualTo(body);
                stream += 2;
            }
        }
    }

    @Test
    void theClientGetsOneContentLengthMatchingItsBodyOrNoneWhereTheStatusForbidsIt() throws Exception {
        try (TestOrigin origin = new TestOrigin();
             RunningGateway gw = RunningGateway.start(H2cGatewayYaml.yaml(), Map.of("ORIGIN", origin.uri()));
             RawH2Client c = new RawH2Client(gw.port())) {
            // a fixed length the origin spelled: kept, once
            origin.enqueue(Reply.raw("HTTP/1.1 200 OK", List.of("Content-Length: 5"), "hello"));
            c.get(1, "/fixed");
            assertThat(lengths(c, c.await(f -> f.stream() == 1 && f.type() == Frames.HEADERS)))
                    .containsExactly("5");
            assertThat(c.body(1)).isEqualTo("hello");
            // an interim head never carries one (the HTTP/1.1 side dropped it; this side relayed it)
            origin.enqueue(Reply.raw("HTTP/1.1 103 Early Hints", List.of("Link: </a.css>", "Content-Length: 5", "",
                    "HTTP/1.1 200 OK", "Content-Length: 2"), "ok"));
            c.get(3, "/early");
            RawH2Client.Frame early = c.await(f -> f.stream() == 3 && f.type() == Frames.HEADERS);
            assertThat(c.fieldLines(early)).contains(":status: 103");
            assertThat(lengths(c, early)).as("content-length on a 103").isEmpty();
            assertThat(lengths(c, c.await(f -> f.stream() == 3 && f.type() == Frames.HEADERS))).containsExactly("2");
            assertThat(c.body(3)).isEqualTo("ok");
            // nor a 204, whatever the origin said
            origin.enqueue(Reply.raw("HTTP/1.1 204 No Content", List.of("Content-Length: 7")));
            c.get(5, "/none");
            RawH2Client.Frame none = c.await(f -> f.stream() == 5 && f.type() == Frames.HEADERS);
            assertThat(none.endStream()).isTrue();
            assertThat(lengths(c, none)).isEmpty();
            // a HEAD's answer keeps the length a GET's body would have, and has no body
            origin.enqueue(Reply.raw("HTTP/1.1 200 OK", List.of("Content-Length: 1234")));
            c.headers(7, RawH2Client.request("HEAD", "/head"), true);
            RawH2Client.Frame head = c.await(f -> f.stream() == 7 && f.type() == Frames.HEADERS);
            assertThat(head.endStream()).isTrue();
            assertThat(lengths(c, head)).containsExactly("1234");
        }
    }

    private static List<String> lengths(RawH2Client c, RawH2Client.Frame headers) throws HpackException {
        List<String> values = new ArrayList<>();
        for (String line : c.fieldLines(headers)) {
            if (line.regionMatches(true, 0, "content-length: ", 0, 16)) {
                values.add(line.substring(16));
            }
        }
        return values;
    }
}
