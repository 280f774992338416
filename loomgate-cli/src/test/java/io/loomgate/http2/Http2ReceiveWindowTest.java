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
    /** The connection's send window as this client sees it, across the uploads of one connection. */
    private long connWindow = Frames.DEFAULT_WINDOW;

    @Test
    void aStreamWhoseHandlerKeepsUpGetsAWindowGrownPastTheInitialOneUpToItsCap() throws Exception {
        try (TestOrigin origin = new TestOrigin();
             RunningGateway gw = RunningGateway.start(H2cGatewayYaml.yaml(), Map.of("ORIGIN", origin.uri()));
             RawH2Client c = new RawH2Client(gw.port())) {
            // Growth needs the handler to have taken everything that came when it reopens the window: on a loaded
            // machine a stream can miss it at every reopening, so up to three uploads (streams 1, 3, 5) get the
            // chance; every one must arrive whole and stay under the cap.
            long mostGranted = 0;
            for (int stream = 1; stream <= 5 && mostGranted <= 4L * Frames.DEFAULT_WINDOW; stream += 2) {
                long granted = upload(c, origin, stream);
                assertThat(granted).as("and never past its cap").isLessThanOrEqualTo(Http2Connection.MAX_STREAM_WINDOW);
                mostGranted = Math.max(mostGranted, granted);
            }
            assertThat(mostGranted).as("the stream's window grew past the initial 64 KiB")
                    .isGreaterThan(4L * Frames.DEFAULT_WINDOW);
        }
    }

    /**
     * Uploads BODY on {@code stream}, sending exactly what the windows allow; returns the most the stream was ever
     * allowed to have in flight. The stream window starts at the gateway's 65,535 (its SETTINGS, checked); the
     * connection window carries over between streams, so it is tracked across calls in {@link #connWindow}.
     */
    private long upload(RawH2Client c, TestOrigin origin, int stream) throws Exception {
        c.headers(stream, RawH2Client.request("POST", "/upload", "content-length", String.valueOf(BODY)), false);
        long streamWindow = Frames.DEFAULT_WINDOW;
        long mostGranted = 0;
        int sent = 0;
        byte[] frame = new byte[FRAME];
        while (sent < BODY) {
            int n = (int) Math.min(Math.min(FRAME, BODY - sent), Math.min(streamWindow, connWindow));
            if (n > 0) {
                Arrays.fill(frame, (byte) sent);
                c.data(stream, n == FRAME ? frame : Arrays.copyOf(frame, n), sent + n == BODY);
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
                } else if (f.stream() == stream) {
                    streamWindow += increment;
                    mostGranted = Math.max(mostGranted, streamWindow);
                }
            }
        }
        int id = stream;
        assertThat(c.fields(c.await(f -> {
            if (f.type() == Frames.WINDOW_UPDATE && f.stream() == 0) {
                connWindow += ((f.payload()[0] & 0x7f) << 24) | ((f.payload()[1] & 0xff) << 16)
                        | ((f.payload()[2] & 0xff) << 8) | (f.payload()[3] & 0xff);
            }
            return f.is(Frames.HEADERS, id);
        }))).containsEntry(":status", "200");
        assertThat(origin.takeRequest().body()).hasSize(BODY);
        return mostGranted;
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
