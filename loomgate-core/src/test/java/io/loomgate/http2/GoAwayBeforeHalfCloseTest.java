package io.loomgate.http2;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.http.HttpLimits;
import io.loomgate.threads.Watchdog;
import io.loomgate.threads.WatchedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Our GOAWAY goes out before the half-close that follows it, however the threads meet. Before session 54, a stream's
 * thread whose frame held the writer while the GOAWAY waited for it could, right after, see GOAWAY "sent" and no
 * stream left and half-close the output first: the GOAWAY's write then failed and the client read EOF without it
 * (Http2AttackDefencesTest.rapidResetIsCutOffWithEnhanceYourCalm, once at load ~30).
 */
class GoAwayBeforeHalfCloseTest {
    /** Output whose writes wait at a gate while it is closed; after the half-close every write fails, as a socket's. */
    private static final class GatedOutput extends OutputStream {
        final ByteArrayOutputStream written = new ByteArrayOutputStream();
        final CountDownLatch blocked = new CountDownLatch(1);
        final CountDownLatch gate = new CountDownLatch(1);
        volatile boolean shut;
        /** Whether a GOAWAY had been written when the output was half-closed. */
        volatile boolean goAwayBeforeShut;

        @Override
        public void write(int b) throws IOException {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            if (shut) {
                throw new IOException("output shut down");
            }
            blocked.countDown();
            try {
                if (!gate.await(10, TimeUnit.SECONDS)) {
                    throw new IOException("gate never opened");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException(e);
            }
            written.write(b, off, len);
        }

        void halfClose() {
            goAwayBeforeShut = hasGoAway(written.toByteArray());
            shut = true;
        }
    }

    static boolean hasGoAway(byte[] wire) {
        for (int at = 0; at + Frames.HEADER_LENGTH <= wire.length; ) {
            int len = ((wire[at] & 0xff) << 16) | ((wire[at + 1] & 0xff) << 8) | (wire[at + 2] & 0xff);
            if ((wire[at + 3] & 0xff) == Frames.GOAWAY) {
                return true;
            }
            at += Frames.HEADER_LENGTH + len;
        }
        return false;
    }

    /**
     * A stream's thread writes RST_STREAM (held at the gate, holding the writer), the drain's GOAWAY waits for the
     * writer behind it, the gate opens and the stream's thread goes on to end the output if done, as
     * {@code StreamResets.resetLocally} does. Repeated: which thread takes the writer next is the scheduler's choice,
     * and the old code lost the GOAWAY only when the stream's thread took it first.
     */
    @Test
    void theHalfCloseWaitsForTheGoAwayBeingWritten() throws Exception {
        int lost = 0;
        int rounds = 200;
        for (int round = 0; round < rounds; round++) {
            GatedOutput out = new GatedOutput();
            WatchedInputStream in = new WatchedInputStream(InputStream.nullInputStream(), () -> { },
                    Watchdog.driven(System::nanoTime));
            Http2Connection conn = new Http2Connection(1, in, new byte[0], out, Http2Settings.enabledDefaults(),
                    HttpLimits.DEFAULTS, Duration.ofSeconds(60), Duration.ofSeconds(60), out::halfClose, s -> { });
            Thread stream = Thread.ofPlatform().start(() -> {
                try {
                    conn.writer.rstStream(1, Frames.CANCEL);
                } catch (IOException e) {
                    // counted below: the GOAWAY is what is asserted
                }
                conn.endOutputIfDone();
            });
            assertThat(out.blocked.await(10, TimeUnit.SECONDS)).as("the stream's RST_STREAM holds the writer").isTrue();
            Thread drain = Thread.ofPlatform().start(conn::drain);
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (drain.getState() != Thread.State.WAITING) { // parked on the writer's lock behind the stream's write
                assertThat(System.nanoTime() - end).as("the drain waits for the writer").isNegative();
                Thread.onSpinWait();
            }
            out.gate.countDown();
            stream.join(10_000);
            drain.join(10_000);
            assertThat(out.shut).as("round %d: half-closed at the end", round).isTrue();
            if (!out.goAwayBeforeShut) {
                lost++;
            }
        }
        assertThat(lost).as("rounds of %d whose output was half-closed before the GOAWAY was written", rounds)
                .isZero();
    }
}
