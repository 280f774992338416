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
 * bytes, then an empty END_STREAM frame: a second frame and often a second write), whatever its size.
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
}
