package io.loomgate.http2;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.H2Origin;
import io.loomgate.testkit.RunningGateway;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;
import org.junit.jupiter.api.Test;

/**
 * A client's RST_STREAM reaches an HTTP/2 origin as RST_STREAM CANCEL on the upstream stream, and the upstream
 * connection, which other streams share, lives on.
 */
class UpstreamStreamCancelTest {

    private static void await(String what, IntSupplier value, int wanted) {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (value.getAsInt() < wanted) {
            assertThat(System.nanoTime() - end).as(what).isNegative();
            Thread.onSpinWait();
        }
    }

    @Test
    void aClientResetCancelsTheUpstreamStreamAndTheConnectionLivesOn() throws Exception {
        try (H2Origin origin = H2Origin.h2c();
             RunningGateway gw = RunningGateway.start(H2cGatewayYaml.yaml(), Map.of("ORIGIN", origin.h2cUri()));
             RawH2Client client = new RawH2Client(gw.port())) {
            client.get(1, "/hang");
            await("the origin got the request", origin::requests, 1);
            client.rst(1, Frames.CANCEL);
            await("the origin saw the stream reset", origin::resets, 1);
            // The upstream connection is shared: it still serves the next stream.
            client.get(3, "/hello");
            RawH2Client.Frame head = client.await(f -> f.is(Frames.HEADERS, 3));
            assertThat(client.fields(head)).containsEntry(":status", "200");
            assertThat(origin.connections()).isEqualTo(1);
        }
    }

    /**
     * The stream's thread is blocked in a socket write to the shared upstream connection (the origin granted the
     * largest windows and stopped reading) when its client resets the stream. The reset must reach the origin as
     * RST_STREAM on that stream once the write completes, and the connection must go on serving: an interrupt of the
     * blocked thread (the former way of cancelling) closes the socket under every stream on it.
     */
    @Test
    void aClientResetWhileTheUploadIsBlockedOnTheSharedUpstreamSocketResetsOnlyThatStream() throws Exception {
        try (ScriptedH2cOrigin origin = new ScriptedH2cOrigin(true);
             RunningGateway gw = RunningGateway.start(H2cGatewayYaml.yaml(), Map.of("ORIGIN", origin.uri()));
             RawH2Client client = new RawH2Client(gw.port())) {
            client.get(1, "/first"); // opens the upstream connection
            assertThat(client.body(1)).isEqualTo("ok");
            ScriptedH2cOrigin.Conn upstream = origin.connections().get(0);

            long declared = 256L * 1024 * 1024; // never all sent: the upload is still going when it is reset
            client.headers(3, RawH2Client.request("POST", "/upload", "content-length", Long.toString(declared)),
                    false);
            long sent = uploadUntilTheGatewayStopsReading(client, 3, declared, origin::pauseReading);
            assertThat(sent).as("bytes the gateway took before its upstream write blocked").isPositive();

            client.rst(3, Frames.CANCEL);
            origin.resumeReading();

            await("the origin saw the upload's stream reset", () -> upstream.resets.size(), 1);
            List<Integer> uploads = upstream.uploads;
            assertThat(uploads).hasSize(1);
            assertThat(upstream.resets).containsExactly(uploads.get(0));
            client.get(5, "/after");
            assertThat(client.body(5)).isEqualTo("ok");
            assertThat(origin.connections()).hasSize(1);
            assertThat(upstream.endedByPeer).as("the shared upstream connection was closed").isFalse();
        }
    }

    /**
     * Sends DATA as the gateway's windows allow. Once the gateway has opened the stream's window (its thread is
     * relaying the body), {@code stall} makes the origin stop reading; when the gateway then opens no window for two
     * seconds, its thread has stopped taking the body while more than half a window of it waits: it is blocked
     * writing upstream (the origin granted windows larger than the whole upload, so not on flow control).
     */
    private static long uploadUntilTheGatewayStopsReading(RawH2Client client, int stream, long declared,
                                                          Runnable stall) throws Exception {
        boolean stalled = false;
        byte[] chunk = new byte[16 * 1024];
        // The connection's window is not tracked: the gateway reopens it (1 MiB) for whatever DATA it buffers, and
        // the stream's window bounds what is buffered.
        long streamWindow = 65_535;
        long sent = 0;
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true) {
            int n = (int) Math.min(chunk.length, streamWindow);
            if (n > 0 && sent + n < declared) {
                client.data(stream, n == chunk.length ? chunk : java.util.Arrays.copyOf(chunk, n), false);
                sent += n;
                streamWindow -= n;
                continue;
            }
            RawH2Client.Frame f = client.readWithin(2_000);
            if (f == null) {
                if (stalled && streamWindow == 0) {
                    return sent;
                }
                assertThat(System.nanoTime() - end).as("the gateway stopped reading the upload early").isNegative();
                continue;
            }
            assertThat(System.nanoTime() - end).as("the gateway's upstream write never blocked; sent " + sent)
                    .isNegative();
            if (f.is(Frames.WINDOW_UPDATE, stream)) {
                streamWindow += f.errorCode(); // the increment: the same 32-bit field at the payload's start
                if (!stalled) {
                    stall.run();
                    stalled = true;
                }
            }
            assertThat(f.is(Frames.RST_STREAM, stream) || f.type() == Frames.GOAWAY).as("the upload ended: " + f)
                    .isFalse();
        }
    }
}
