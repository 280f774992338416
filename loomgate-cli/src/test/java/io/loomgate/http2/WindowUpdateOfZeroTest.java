package io.loomgate.http2;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.RunningGateway;
import io.loomgate.testkit.TestOrigin;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * RFC 9113 §6.9: a WINDOW_UPDATE with an increment of 0 is a stream error (PROTOCOL_ERROR) on a stream and a
 * connection error on the connection, at the gateway's server side (its client side: Http2ClientConnectionTest).
 */
class WindowUpdateOfZeroTest {

    @Test
    void onAStreamItResetsThatStreamAndTheConnectionGoesOn() throws Exception {
        try (TestOrigin origin = new TestOrigin();
             RunningGateway gw = RunningGateway.start(H2cGatewayYaml.yaml(), Map.of("ORIGIN", origin.uri()));
             RawH2Client c = new RawH2Client(gw.port())) {
            c.headers(1, RawH2Client.request("POST", "/upload"), false); // the stream stays open: its body is due
            c.windowUpdate(1, 0);
            RawH2Client.Frame rst = c.await(f -> f.is(Frames.RST_STREAM, 1) || f.type() == Frames.GOAWAY);
            assertThat(rst.type()).as("a stream error, not the connection's").isEqualTo(Frames.RST_STREAM);
            assertThat(rst.errorCode()).isEqualTo(Frames.PROTOCOL_ERROR);
            c.get(3, "/after");
            assertThat(c.body(3)).isEqualTo("hello from origin");
        }
    }

    @Test
    void onTheConnectionItEndsTheConnection() throws Exception {
        try (TestOrigin origin = new TestOrigin();
             RunningGateway gw = RunningGateway.start(H2cGatewayYaml.yaml(), Map.of("ORIGIN", origin.uri()));
             RawH2Client c = new RawH2Client(gw.port())) {
            c.windowUpdate(0, 0);
            RawH2Client.Frame goAway = c.awaitGoAway();
            assertThat(goAway).isNotNull();
            assertThat(goAway.errorCode()).isEqualTo(Frames.PROTOCOL_ERROR);
        }
    }
}
