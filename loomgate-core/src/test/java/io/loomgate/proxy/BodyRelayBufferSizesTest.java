package io.loomgate.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.http.BufferPool;
import io.loomgate.http.HttpLimits;
import io.loomgate.http1.BodyFraming;
import io.loomgate.http1.BodyInputStream;
import io.loomgate.http1.HttpInput;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The bulk path of {@link BodyRelay}: a sender that always has bytes waiting is relayed with buffers that grow to
 * 128 KiB (what the JDK's socket streams move per system call), so a large body costs few reads and writes per
 * megabyte; and every byte arrives, in order, whatever the buffer sizes were.
 */
class BodyRelayBufferSizesTest {

    /** Records the size of every write it is handed. */
    private static final class RecordingOutput extends ByteArrayOutputStream {
        final List<Integer> writes = new ArrayList<>();

        @Override
        public synchronized void write(byte[] b, int off, int len) {
            writes.add(len);
            super.write(b, off, len);
        }
    }

    private static byte[] body(int length) {
        byte[] b = new byte[length];
        for (int i = 0; i < length; i++) {
            b[i] = (byte) (i * 31 + (i >>> 8));
        }
        return b;
    }

    private static BodyInputStream fixed(byte[] bytes) {
        HttpInput in = new HttpInput(new ByteArrayInputStream(bytes), BufferPool.SIZE, HttpLimits.DEFAULTS);
        return new BodyFraming.Fixed(bytes.length).open(in, HttpLimits.DEFAULTS);
    }

    @Test
    void aBulkBodyWithKnownLengthIsRelayedIn128KiBPiecesOnceTheSenderKeepsUp() throws IOException {
        byte[] bytes = body(4 * 1024 * 1024);
        RecordingOutput out = new RecordingOutput();

        long copied = BodyRelay.copy(fixed(bytes), out, bytes.length);

        assertThat(copied).isEqualTo(bytes.length);
        assertThat(Arrays.equals(out.toByteArray(), bytes)).as("every byte, in order").isTrue();
        assertThat(BodyRelay.MAX_BUFFER).isEqualTo(128 * 1024);
        assertThat(out.writes).contains(BodyRelay.MAX_BUFFER);
        assertThat(out.writes).allSatisfy(n -> assertThat(n).isLessThanOrEqualTo(BodyRelay.MAX_BUFFER));
        // 8, 16, 32 and 64 KiB while growing, then 128 KiB pieces: 4 MiB in 36 writes (with 64 KiB pieces: 67).
        assertThat(out.writes.size()).isLessThanOrEqualTo(40);
    }

    @Test
    void aBodyOfUnknownLengthGrowsToTheSameLargestBuffer() throws IOException {
        byte[] bytes = body(2 * 1024 * 1024 + 17);
        RecordingOutput out = new RecordingOutput();
        HttpInput in = new HttpInput(new ByteArrayInputStream(bytes), BufferPool.SIZE, HttpLimits.DEFAULTS);
        BodyInputStream untilClose = BodyFraming.UNTIL_CLOSE.open(in, HttpLimits.DEFAULTS);

        long copied = BodyRelay.copy(untilClose, out, -1);

        assertThat(copied).isEqualTo(bytes.length);
        assertThat(Arrays.equals(out.toByteArray(), bytes)).isTrue();
        assertThat(out.writes).contains(BodyRelay.MAX_BUFFER);
    }

    @Test
    void aSmallBodyIsCopiedWithABufferOfItsOwnSize() throws IOException {
        byte[] bytes = body(300);
        RecordingOutput out = new RecordingOutput();

        assertThat(BodyRelay.copy(fixed(bytes), out, bytes.length)).isEqualTo(300);
        assertThat(out.writes).containsExactly(300);
    }

    /**
     * A small body (W8's /hello is 5 bytes) costs its relay one buffer of its own size and nothing else: the bytes
     * relayed before a failure are set on the failure where it is thrown, not kept in an array beside the loop
     * (25 B a body before session 60).
     */
    @Test
    void aSmallBodysRelayMakesItsBufferAndNothingElse() throws IOException {
        byte[] bytes = body(5);
        int rounds = 2_000;
        BodyInputStream[] bodies = new BodyInputStream[rounds + 1];
        for (int i = 0; i < bodies.length; i++) {
            bodies[i] = fixed(bytes);
            bodies[i].awaitData(); // the input's own buffer filled here, outside the count
        }
        java.io.OutputStream out = java.io.OutputStream.nullOutputStream();
        assertThat(BodyRelay.copy(bodies[rounds], out, bytes.length)).isEqualTo(5); // classes loaded
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean)
                java.lang.management.ManagementFactory.getThreadMXBean();
        long before = mx.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < rounds; i++) {
            BodyRelay.copy(bodies[i], out, bytes.length);
        }
        long perBody = (mx.getCurrentThreadAllocatedBytes() - before) / rounds;
        // the 5-byte buffer is 24 B (a 16 B array header with compact object headers off); the long[1] was 24 more
        assertThat(perBody).as("bytes allocated per 5-byte body relayed").isLessThan(40);
    }
}
