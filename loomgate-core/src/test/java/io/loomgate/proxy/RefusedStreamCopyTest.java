package io.loomgate.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.http1.BodyInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * The copy a request body keeps for an HTTP/2 stream the origin may refuse (no {@code Retry} policy): a rewind gives
 * the kept bytes, then the rest of the client's body; past the bound, or once the origin answered, nothing is kept.
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
}
