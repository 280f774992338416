package io.loomgate.http2;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.RunningGateway;
import io.loomgate.testkit.TestOrigin;
import java.util.Arrays;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The gateway's receive windows for request bodies (issue 34, U3): a stream whose handler keeps up with its upload gets
 * a window that grows past SETTINGS_INITIAL_WINDOW_SIZE (so the client is not paced by 64 KiB round trips), never past
 * {@link Http2Connection#MAX_STREAM_WINDOW}. The client here is a raw frame writer that sends exactly as much as it
 * has been granted, and records the most it was ever allowed to have in flight on the stream.
 */
class Http2ReceiveWindowTest {
    private static final int BODY = 4 << 20;
    private static final int FRAME = 16_384;

    @Test
    void aStreamWhoseHandlerKeepsUpGetsAWindowGrownPastTheInitialOneUpToItsCap() throws Exception {
        try (TestOrigin origin = new TestOrigin();
             RunningGateway gw = RunningGateway.start(H2cGatewayYaml.yaml(), Map.of("ORIGIN", origin.uri()));
             RawH2Client c = new RawH2Client(gw.port())) {
            c.headers(1, RawH2Client.request("POST", "/upload", "content-length", String.valueOf(BODY)), false);
            long streamWindow = Frames.DEFAULT_WINDOW; // the gateway's SETTINGS say 65,535 (checked below)
            long connWindow = Frames.DEFAULT_WINDOW;
            long mostGranted = 0;
            int sent = 0;
            byte[] frame = new byte[FRAME];
            while (sent < BODY) {
                int n = (int) Math.min(Math.min(FRAME, BODY - sent), Math.min(streamWindow, connWindow));
                if (n > 0) {
                    Arrays.fill(frame, (byte) sent);
                    c.data(1, n == FRAME ? frame : Arrays.copyOf(frame, n), sent + n == BODY);
                    sent += n;
                    streamWindow -= n;
                    connWindow -= n;
                    continue;
                }
                RawH2Client.Frame f = c.readWithin(20_000);
                assertThat(f).as("a WINDOW_UPDATE within 20 s after %d bytes", sent).isNotNull();
                if (f.type() == Frames.SETTINGS && (f.flags() & Frames.FLAG_ACK) == 0) {
                    assertThat(initialWindow(f.payload())).isIn(-1, Frames.DEFAULT_WINDOW);
                } else if (f.type() == Frames.WINDOW_UPDATE) {
                    int increment = ((f.payload()[0] & 0x7f) << 24) | ((f.payload()[1] & 0xff) << 16)
                            | ((f.payload()[2] & 0xff) << 8) | (f.payload()[3] & 0xff);
                    if (f.stream() == 0) {
                        connWindow += increment;
                    } else if (f.stream() == 1) {
                        streamWindow += increment;
                        mostGranted = Math.max(mostGranted, streamWindow);
                    }
                }
            }
            assertThat(c.fields(c.await(f -> f.is(Frames.HEADERS, 1)))).containsEntry(":status", "200");
            assertThat(origin.takeRequest().body()).hasSize(BODY);
            assertThat(mostGranted).as("the stream's window grew past the initial 64 KiB")
                    .isGreaterThan(4L * Frames.DEFAULT_WINDOW);
            assertThat(mostGranted).as("and never past its cap").isLessThanOrEqualTo(Http2Connection.MAX_STREAM_WINDOW);
        }
    }

    /** SETTINGS_INITIAL_WINDOW_SIZE in a SETTINGS payload, or -1 when absent. */
    private static int initialWindow(byte[] p) {
        for (int i = 0; i + 6 <= p.length; i += 6) {
            if ((((p[i] & 0xff) << 8) | (p[i + 1] & 0xff)) == Frames.SETTINGS_INITIAL_WINDOW_SIZE) {
                return ((p[i + 2] & 0xff) << 24) | ((p[i + 3] & 0xff) << 16) | ((p[i + 4] & 0xff) << 8)
                        | (p[i + 5] & 0xff);
            }
        }
        return -1;
    }
}
