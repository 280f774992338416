package io.loomgate.http2;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.RunningGateway;
import io.loomgate.testkit.TestOrigin;
import io.loomgate.testkit.TestOrigin.Reply;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A SETTINGS frame that raises SETTINGS_INITIAL_WINDOW_SIZE is acknowledged before any DATA frame the raise lets
 * through. A peer may read up to the ACK and take every frame before it as sent under its old settings; h2spec 6.9.2/1
 * does, and dropped the DATA frame it then waited for when a stream thread, woken by the new window, wrote it before
 * the frame reader wrote the ACK (about one full h2spec run in three). The race is narrow, so it is run many times:
 * each round blocks a stream on a zero window, raises the window to one byte, and checks the order of what comes back.
 */
class SettingsAcknowledgementOrderTest {

    private static final int ROUNDS = 300;

    @Test
    void theAckOfARaisedWindowPrecedesTheDataItReleases() throws Exception {
        try (TestOrigin origin = new TestOrigin();
             // two SETTINGS a round, faster than the SETTINGS-flood defence allows by default
             RunningGateway gw = Http2AttackDefencesTest.gateway(origin, "", "max-control-frames-per-second: 100000");
             RawH2Client c = new RawH2Client(gw.port(), Frames.SETTINGS_INITIAL_WINDOW_SIZE, 0)) {
            awaitAck(c);
            int stream = 1;
            for (int round = 0; round < ROUNDS; round++) {
                origin.enqueue(Reply.raw("HTTP/1.1 200 OK", List.of("Content-Length: 8"), "12345678"));
                c.get(stream, "/window");
                int s = stream;
                // The response head is not flow controlled; once it is here, the stream waits for window.
                c.await(f -> f.is(Frames.HEADERS, s));
                c.settings(Frames.SETTINGS_INITIAL_WINDOW_SIZE, 1);
                RawH2Client.Frame next = c.await(f -> f.type() == Frames.SETTINGS || f.is(Frames.DATA, s));
                assertThat(next).as("round %d: the first of SETTINGS ACK and DATA", round).isNotNull();
                assertThat(next.type()).as("round %d: the SETTINGS ACK comes before the DATA it let through", round)
                        .isEqualTo(Frames.SETTINGS);
                assertThat(next.flags() & Frames.FLAG_ACK).isEqualTo(Frames.FLAG_ACK);
                RawH2Client.Frame oneByte = c.await(f -> f.is(Frames.DATA, s));
                assertThat(oneByte.payload()).as("round %d: exactly the raised window", round).hasSize(1);
                // Back to a zero initial window (new streams start blocked), then let this stream finish.
                c.settings(Frames.SETTINGS_INITIAL_WINDOW_SIZE, 0);
                awaitAck(c);
                c.windowUpdate(s, 1 << 16);
                c.windowUpdate(0, 1 << 16);
                RawH2Client.Frame last;
                do {
                    last = c.await(f -> f.is(Frames.DATA, s));
                    assertThat(last).as("round %d: the rest of the body", round).isNotNull();
                } while (!last.endStream());
                stream += 2;
            }
        }
    }

    private static void awaitAck(RawH2Client c) throws Exception {
        RawH2Client.Frame ack = c.await(f -> f.type() == Frames.SETTINGS && (f.flags() & Frames.FLAG_ACK) != 0);
        assertThat(ack).as("SETTINGS ACK").isNotNull();
    }
}
