package io.loomgate.http2;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.CountingServer;
import io.loomgate.testkit.RunningGateway;
import io.loomgate.testkit.TestOrigin;
import io.loomgate.testkit.TestOrigin.Reply;
import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** How streams end: cancelled by the client mid-upload, answered while a neighbour's window is shut, drained. */
class Http2StreamLifecycleTest {

    @Test
    void aStreamResetMidUploadCancelsTheUpstreamRequest() throws Exception {
        try (CountingServer origin = new CountingServer();
             RunningGateway gw = RunningGateway.start(H2cGatewayYaml.yaml(), Map.of("ORIGIN",
                     "http://127.0.0.1:" + origin.port()));
             RawH2Client c = new RawH2Client(gw.port())) {
            c.headers(1, RawH2Client.request("POST", "/upload"), false);
            c.data(1, "first part of a long upload;".getBytes(StandardCharsets.US_ASCII), false);
            origin.awaitCount(1);
            Socket upstream = origin.accepted(0);
            upstream.setSoTimeout(15_000);
            InputStream in = upstream.getInputStream();
            StringBuilder seen = new StringBuilder();
            byte[] buf = new byte[4096];
            while (!seen.toString().contains("first part")) {
                int n = in.read(buf);
                assertThat(n).as("upstream got the start of the upload").isPositive();
                seen.append(new String(buf, 0, n, StandardCharsets.ISO_8859_1));
            }
            c.rst(1, Frames.CANCEL);
            // The gateway gives up the upstream request: its connection to the origin closes (EOF, not a timeout).
            int n;
            while ((n = in.read(buf)) > 0) {
                seen.append(new String(buf, 0, n, StandardCharsets.ISO_8859_1));
            }
            assertThat(n).isEqualTo(-1);
            assertThat(seen.toString()).doesNotContain("\r\n0\r\n\r\n"); // no last chunk: it did not look complete
        }
    }

    @Test
    void aStreamWhoseClientStopsReadingDoesNotStallTheOthers() throws Exception {
        try (TestOrigin origin = new TestOrigin();
             RunningGateway gw = RunningGateway.start(H2cGatewayYaml.yaml(), Map.of("ORIGIN", origin.uri()));
             RawH2Client c = new RawH2Client(gw.port())) {
            byte[] mib = new byte[1 << 20];
            origin.enqueue(new Reply("HTTP/1.1 200 OK", List.of("Content-Length: " + (8 << 20)),
                    java.util.Collections.nCopies(8, mib), Duration.ZERO, Duration.ZERO, TestOrigin.Effect.NONE));
            c.get(1, "/big"); // never given more than the initial 64 KiB window: it stalls at once
            assertThat(c.fields(c.await(f -> f.is(Frames.HEADERS, 1)))).containsEntry(":status", "200");
            // Open the connection window wide: only stream 1's own window holds it back.
            c.windowUpdate(0, 64 << 20);
            for (int stream = 3; stream <= 21; stream += 2) {
                c.get(stream, "/small");
                assertThat(c.body(stream)).isEqualTo("hello from origin");
            }
        }
    }

    @Test
    void drainSendsGoAwayAndStreamsInFlightFinish() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        try (TestOrigin origin = new TestOrigin();
             RunningGateway gw = RunningGateway.start(H2cGatewayYaml.yaml(), Map.of("ORIGIN", origin.uri()));
             RawH2Client c = new RawH2Client(gw.port())) {
            origin.enqueue(Reply.raw("HTTP/1.1 200 OK", List.of("Content-Length: 9"), "in", "-flight")
                    .gatedBy(release));
            c.get(1, "/slow");
            origin.takeRequest();
            AtomicBoolean clean = new AtomicBoolean();
            Thread drain = Thread.ofVirtual().start(() -> {
                try {
                    clean.set(gw.gateway().listener().drain(Duration.ofSeconds(20)));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            RawH2Client.Frame goAway = c.awaitGoAway();
            assertThat(goAway).isNotNull();
            assertThat(goAway.errorCode()).isEqualTo(Frames.NO_ERROR);
            assertThat(goAway.payload()[3]).as("last stream id").isEqualTo((byte) 1);
            release.countDown();
            assertThat(c.body(1)).isEqualTo("in-flight");
            assertThat(c.isClosedByPeer()).isTrue();
            c.close(); // as a real client does once it has seen GOAWAY and the end of the stream
            drain.join(Duration.ofSeconds(20));
            assertThat(clean).isTrue();
        }
    }
}
