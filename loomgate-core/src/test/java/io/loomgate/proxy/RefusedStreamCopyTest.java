package io.loomgate.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.loomgate.http1.BodyInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The copy a request body keeps for an HTTP/2 stream the origin may refuse (no {@code Retry} policy): a rewind gives
 * the kept bytes, then the rest of the client's body; past the bound, or once the origin answered, nothing is kept.
 * The HTTP/2 upload of a body of declared length sends it from the copy's own array (its bytes allocated once).
 */
class RefusedStreamCopyTest {

    /** A client body of {@code bytes}, given at most {@code step} bytes a read. */
    private static final class Client extends BodyInputStream {
        private final byte[] bytes;
        private final int step;
        private int at;

        Client(byte[] bytes, int step) {
            this.bytes = bytes;
            this.step = step;
        }

        @Override
        public int read(byte[] b, int off, int len) {
            if (at == bytes.length) {
                return -1;
            }
            int n = Math.min(Math.min(len, step), bytes.length - at);
            System.arraycopy(bytes, at, b, off, n);
            at += n;
            return n;
        }

        @Override
        public boolean isComplete() {
            return at == bytes.length;
        }

        /** All of it is waiting, as a body that came in one go (the relay flushes only at the end). */
        @Override
        public int available() {
            return bytes.length - at;
        }
    }

    private static byte[] body(int n) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (i * 31 + 7);
        }
        return b;
    }

    /** Reads {@code max} bytes (or to the end) in reads of at most 1,000 bytes. */
    private static byte[] read(BodyInputStream in, int max) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] buf = new byte[1000];
        while (out.size() < max) {
            int n = in.read(buf, 0, Math.min(buf.length, max - out.size()));
            if (n < 0) {
                break;
            }
            out.write(buf, 0, n);
        }
        return out.toByteArray();
    }

    @Test
    void aRewindGivesTheKeptBytesThenTheRestOfTheClientsBody() throws IOException {
        byte[] whole = body(10_000);
        RefusedStreamCopy copy = new RefusedStreamCopy(new Client(whole, 700), 65_535, whole.length);
        byte[] first = read(copy, 3_000); // the refused attempt's upload got this far
        assertThat(copy.replayable()).isTrue();
        assertThat(copy.rewind()).isTrue();
        byte[] again = read(copy, Integer.MAX_VALUE);
        assertThat(again).isEqualTo(whole);
        assertThat(copy.isComplete()).isTrue();
        assertThat(first).isEqualTo(Arrays.copyOf(whole, 3_000));
        assertThat(copy.rewind()).as("a second refusal: the whole body again").isTrue();
        assertThat(read(copy, Integer.MAX_VALUE)).isEqualTo(whole);
    }

    @Test
    void aBodyPastTheBoundIsNotKept() throws IOException {
        byte[] whole = body(70_000);
        RefusedStreamCopy copy = new RefusedStreamCopy(new Client(whole, 4_096), 65_535, whole.length);
        assertThat(read(copy, Integer.MAX_VALUE)).isEqualTo(whole);
        assertThat(copy.replayable()).isFalse();
        assertThat(copy.rewind()).isFalse();
    }

    @Test
    void aBodyRefusedBeforeItPassedTheBoundIsWholeAgainThoughLargerThanIt() throws IOException {
        byte[] whole = body(200_000);
        RefusedStreamCopy copy = new RefusedStreamCopy(new Client(whole, 16_384), 65_535, -1);
        read(copy, 32_768);
        assertThat(copy.rewind()).isTrue();
        assertThat(read(copy, Integer.MAX_VALUE)).isEqualTo(whole);
        assertThat(copy.replayable()).as("past the bound on the second pass").isFalse();
    }

    @Test
    void onceTheOriginAnsweredNothingMoreIsKept() throws IOException {
        byte[] whole = body(5_000);
        RefusedStreamCopy copy = new RefusedStreamCopy(new Client(whole, 1_000), 65_535, whole.length);
        read(copy, 2_000);
        copy.drop();
        assertThat(copy.replayable()).isFalse();
        assertThat(read(copy, Integer.MAX_VALUE)).as("the body still streams whole").isEqualTo(
                Arrays.copyOfRange(whole, 2_000, 5_000));
        assertThat(copy.rewind()).isFalse();
    }

    /** The origin's stream as the upload sees it: records what is written; fails once {@code failAfter} went. */
    private static final class Origin extends OutputStream {
        final byte[] got = new byte[70_000];
        int count;
        int failAfter = Integer.MAX_VALUE;
        Runnable afterFirstWrite;

        @Override
        public void write(int b) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            if (count + len > failAfter) {
                throw new IOException("refused");
            }
            System.arraycopy(b, off, got, count, len);
            count += len;
            if (afterFirstWrite != null) {
                afterFirstWrite.run();
                afterFirstWrite = null;
            }
        }

        byte[] sent() {
            return Arrays.copyOf(got, count);
        }
    }

    /**
     * Session 56 (h2copy): the copy of a body of declared length is the upload's buffer, so a POST to an HTTP/2
     * origin allocates its body once. Before, the upload read the body through {@link BodyRelay}'s own buffer and the
     * copy kept each piece again: 1 KiB + 1 KiB for a 1 KiB body, 16 KiB + 8 KiB for a 16 KiB one. A retry's replay
     * sends the kept array itself: nothing more.
     */
    @ParameterizedTest
    @ValueSource(ints = {1_024, 16_384})
    void theUploadSendsADeclaredLengthFromTheCopysArray(int size) throws IOException {
        byte[] whole = body(size);
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        Origin origin = new Origin();
        int rounds = 200;
        long first = 0;
        long replay = 0;
        for (int round = -rounds; round < rounds; round++) { // the first half warms up
            Client client = new Client(whole, 4_096);
            origin.count = 0;
            long t0 = mx.getCurrentThreadAllocatedBytes();
            RefusedStreamCopy copy = new RefusedStreamCopy(client, 65_535, size);
            Http2Codec.sendBody(copy, origin, size);
            long t1 = mx.getCurrentThreadAllocatedBytes();
            if (origin.count != size || !copy.rewind()) {
                throw new AssertionError("round " + round + ": " + origin.count + " bytes sent");
            }
            origin.count = 0;
            Http2Codec.sendBody(copy, origin, size); // the retry after a refusal
            long t2 = mx.getCurrentThreadAllocatedBytes();
            if (origin.count != size) {
                throw new AssertionError("round " + round + ": replay sent " + origin.count + " bytes");
            }
            if (round >= 0) {
                first += t1 - t0;
                replay += t2 - t1;
            }
        }
        assertThat(origin.sent()).isEqualTo(whole);
        // the body's array and the copy object; 256 B of room for a one-time allocation (the JIT) during the loop
        assertThat(first / rounds).as("bytes per upload").isLessThan(size + 16 + 256);
        assertThat(replay / rounds).as("bytes per replay").isLessThan(256);
    }

    @Test
    void aRefusalMidUploadIsFollowedByTheKeptBytesThenTheRest() throws IOException {
        byte[] whole = body(40_000);
        RefusedStreamCopy copy = new RefusedStreamCopy(new Client(whole, 3_000), 65_535, whole.length);
        Origin refusing = new Origin();
        refusing.failAfter = 10_000;
        assertThatThrownBy(() -> Http2Codec.sendBody(copy, refusing, whole.length))
                .isInstanceOf(BodyRelay.WriteFailed.class);
        assertThat(refusing.sent()).isEqualTo(Arrays.copyOf(whole, 9_000));
        assertThat(copy.rewind()).as("12,000 bytes read, all kept").isTrue();
        Origin next = new Origin();
        Http2Codec.sendBody(copy, next, whole.length);
        assertThat(next.sent()).isEqualTo(whole);
        assertThat(copy.rewind()).isTrue();
        assertThat(read(copy, Integer.MAX_VALUE)).as("an HTTP/1.1 retry reads it").isEqualTo(whole);
    }

    @Test
    void anAnswerWhileUploadingLetsTheCopyGoAndTheBodyStillGoesWhole() throws IOException {
        byte[] whole = body(30_000);
        RefusedStreamCopy copy = new RefusedStreamCopy(new Client(whole, 5_000), 65_535, whole.length);
        Origin origin = new Origin();
        origin.afterFirstWrite = copy::drop;
        Http2Codec.sendBody(copy, origin, whole.length);
        assertThat(origin.sent()).isEqualTo(whole);
        assertThat(copy.replayable()).isFalse();
        assertThat(copy.rewind()).isFalse();
    }
}
