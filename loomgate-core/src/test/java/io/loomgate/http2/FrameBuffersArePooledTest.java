package io.loomgate.http2;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.http.BufferPool;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The HTTP/2 reader's burst buffer and the writer's batch buffer are borrowed from the {@link BufferPool} and given
 * back once drained or written (a fresh array for each was a third of the gateway's allocation at W9); what is not
 * the pool's (the bytes read before the switch to HTTP/2) never goes into it, and the bytes are the same either way.
 */
class FrameBuffersArePooledTest {

    @BeforeEach
    void emptyThePool() {
        drainPool();
    }

    /** Everything the pool holds now (it is the process's: other tests' threads may give buffers back meanwhile). */
    private static List<byte[]> drainPool() {
        List<byte[]> taken = new ArrayList<>();
        for (byte[] b; (b = BufferPool.takeRecycled()) != null; ) {
            taken.add(b);
        }
        return taken;
    }

    private static boolean startsWith(byte[] buffer, byte[] prefix) {
        return Arrays.equals(buffer, 0, prefix.length, prefix, 0, prefix.length);
    }

    @Test
    void aBurstIsReadIntoAPooledBufferThatGoesBackWhenDrained() throws IOException {
        byte[] burst = new byte[3000];
        Arrays.fill(burst, (byte) 7);
        FrameInput in = new FrameInput(new ByteArrayInputStream(burst), new byte[0]);
        byte[] header = new byte[Frames.HEADER_LENGTH];
        assertThat(in.read(header, 0, header.length)).isEqualTo(header.length); // the burst, into a buffer
        assertThat(in.holdsBytes()).isTrue();
        assertThat(drainPool()).as("lent while it holds bytes").noneMatch(b -> startsWith(b, burst));
        byte[] rest = new byte[burst.length - header.length];
        assertThat(in.read(rest, 0, rest.length)).isEqualTo(rest.length);
        assertThat(in.holdsBytes()).isFalse();
        assertThat(drainPool()).as("given back when drained").anyMatch(b -> startsWith(b, burst));
        assertThat(rest).containsOnly(7);
    }

    @Test
    void theBytesReadBeforeHttp2AreNeverGivenToThePoolEvenAtThePoolsSize() throws IOException {
        byte[] alreadyRead = new byte[BufferPool.SIZE]; // the size the pool takes: it must still not take this one
        FrameInput in = new FrameInput(new ByteArrayInputStream(new byte[0]), alreadyRead);
        byte[] b = new byte[BufferPool.SIZE];
        int off = 0;
        while (off < b.length) {
            off += in.read(b, off, b.length - off);
        }
        assertThat(drainPool()).noneMatch(pooled -> pooled == alreadyRead);
    }

    @Test
    void aWrittenBatchGivesItsBufferBackAndTheFramesAreWhole() throws IOException {
        ByteArrayOutputStream wire = new ByteArrayOutputStream();
        FrameWriter w = new FrameWriter(wire);
        byte[] payload = new byte[20_000]; // larger than a pooled buffer: an array of its own, which the pool refuses
        Arrays.fill(payload, (byte) 3);
        w.data(1, payload, 0, payload.length, true);
        w.windowUpdate(0, 1000);
        byte[] bytes = wire.toByteArray();
        assertThat(bytes).hasSize(Frames.HEADER_LENGTH + payload.length + Frames.HEADER_LENGTH + 4);
        assertThat(Arrays.copyOfRange(bytes, Frames.HEADER_LENGTH, Frames.HEADER_LENGTH + payload.length))
                .containsOnly(3);
        byte[] windowUpdate = Arrays.copyOfRange(bytes, Frames.HEADER_LENGTH + payload.length, bytes.length);
        assertThat(windowUpdate[3]).isEqualTo((byte) Frames.WINDOW_UPDATE);
        assertThat(drainPool()).as("the WINDOW_UPDATE's buffer, back after its write")
                .anyMatch(b -> startsWith(b, windowUpdate));
    }
}
