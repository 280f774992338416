package io.loomgate.http2;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.junit.jupiter.api.Test;

/**
 * A request body's DATA frames that arrived while its relay was busy are read together: one read returns every
 * buffered payload up to the caller's length, and {@code available()} counts them all, so a relay that is behind
 * writes several frames to the origin at once instead of one 16 KiB frame per write (issue 34, U3). The bytes keep
 * their order across frames and across reads that end inside a frame.
 */
class InboundBodyReadsTest {
    private static final int FRAME = 16_384;

    @Test
    void aReadTakesEveryBufferedFrameUpToItsLength() throws Exception {
        ReentrantLock lock = new ReentrantLock();
        InboundBody body = new InboundBody(lock, lock.newCondition(), new FrameWriter(new ByteArrayOutputStream()),
                1, 1 << 20, false, TimeUnit.SECONDS.toNanos(10), "test") { };
        byte[] sent = new byte[4 * FRAME + 100];
        for (int i = 0; i < sent.length; i++) {
            sent[i] = (byte) (i * 31 + i / FRAME);
        }
        lock.lock();
        try {
            for (int off = 0; off < sent.length; off += FRAME) {
                int len = Math.min(FRAME, sent.length - off);
                body.receive(Arrays.copyOfRange(sent, off, off + len), 0, len, off + len == sent.length);
            }
        } finally {
            lock.unlock();
        }
        assertThat(body.available()).isEqualTo(sent.length);

        byte[] got = new byte[sent.length];
        int first = body.read(got, 0, 3 * FRAME - 7); // ends inside the third frame
        assertThat(first).isEqualTo(3 * FRAME - 7);
        assertThat(body.available()).isEqualTo(sent.length - first);
        int second = body.read(got, first, 128 * 1024);
        assertThat(second).isEqualTo(sent.length - first);
        assertThat(got).isEqualTo(sent);
        assertThat(body.read(new byte[1], 0, 1)).isEqualTo(-1);
        assertThat(body.isComplete()).isTrue();
    }
}
