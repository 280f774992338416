package io.loomgate.http2;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * The bytes a connection read before it knew it spoke HTTP/2 (the preface and whatever came with it) are the frame
 * input's first buffer: they come out first and whole, then the socket's, with no stream in between.
 */
class FrameInputReadsAlreadyReadBytesFirstTest {

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    @Test
    void alreadyReadBytesComeBeforeTheSocketsAcrossAReadBoundary() throws IOException {
        FrameInput in = new FrameInput(new ByteArrayInputStream(ascii("world")), ascii("hello "));
        byte[] b = new byte[11];
        int n = in.awaitRead(b, 0, 4);
        assertThat(n).isEqualTo(4);
        int off = n;
        while (off < b.length) {
            int k = in.read(b, off, b.length - off);
            assertThat(k).isPositive();
            off += k;
        }
        assertThat(new String(b, StandardCharsets.US_ASCII)).isEqualTo("hello world");
        assertThat(in.read(b, 0, 1)).isEqualTo(-1);
    }

    @Test
    void aWaitWithNothingAlreadyReadGoesStraightToTheSocket() throws IOException {
        FrameInput in = new FrameInput(new ByteArrayInputStream(ascii("abc")), new byte[0]);
        byte[] b = new byte[3];
        assertThat(in.awaitRead(b, 0, 3)).isEqualTo(3);
        assertThat(new String(b, StandardCharsets.US_ASCII)).isEqualTo("abc");
        assertThat(in.available()).isZero();
    }

    @Test
    void availableCountsTheAlreadyReadBytesUntilTheyAreDrained() throws IOException {
        FrameInput in = new FrameInput(new ByteArrayInputStream(new byte[0]), ascii("PRI"));
        assertThat(in.available()).isEqualTo(3);
        byte[] b = new byte[3];
        assertThat(in.awaitRead(b, 0, 3)).isEqualTo(3);
        assertThat(in.available()).isZero();
        assertThat(in.awaitRead(b, 0, 3)).isEqualTo(-1);
    }
}
