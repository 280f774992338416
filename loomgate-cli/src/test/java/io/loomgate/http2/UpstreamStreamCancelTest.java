package io.loomgate.http2;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.H2Origin;
import io.loomgate.testkit.RunningGateway;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;
import org.junit.jupiter.api.Test;

/** A client's RST_STREAM reaches an HTTP/2 origin as RST_STREAM CANCEL on the upstream stream. */
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
}
