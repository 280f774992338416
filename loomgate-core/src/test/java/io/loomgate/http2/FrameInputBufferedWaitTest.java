package io.loomgate.http2;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * While streams are in flight, the wait for the next frame reads into the frame input's buffer, so a burst of frames
 * that arrived together costs one read of the socket, not the first frame's 9-byte header and then the rest; with
 * nothing in flight the wait reads straight into the caller's array and no buffer stays held. Over a real loopback
 * socket, counting the reads that reach its stream.
 */
class FrameInputBufferedWaitTest {
    /** Three HEADERS-sized frames (9-byte header and a 40-byte payload each), as a client's burst of requests. */
    private static final int FRAME = 9 + 40;
    private static final int BURST = 3 * FRAME;

    @Test
    void aBufferedWaitTakesTheWholeBurstInOneRead() throws Exception {
        assertThat(readsForBurst(true)).isEqualTo(1);
    }

    @Test
    void anUnbufferedWaitReadsTheHeaderAloneAndHoldsNoBufferAfterwards() throws Exception {
        assertThat(readsForBurst(false)).isEqualTo(2);
    }

    /** Writes one burst, waits until it is all in the socket, reads it frame by frame; returns the socket reads. */
    private static int readsForBurst(boolean buffered) throws Exception {
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
             Socket client = new Socket(server.getInetAddress(), server.getLocalPort());
             Socket accepted = server.accept()) {
            accepted.setSoTimeout(10_000);
            AtomicInteger reads = new AtomicInteger();
            InputStream counted = new FilterInputStream(accepted.getInputStream()) {
                @Override
                public int read(byte[] b, int off, int len) throws IOException {
                    reads.incrementAndGet();
                    return super.read(b, off, len);
                }
            };
            FrameInput in = new FrameInput(counted, new byte[0]);
            OutputStream out = client.getOutputStream();
            byte[] burst = new byte[BURST];
            out.write(burst);
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (accepted.getInputStream().available() < BURST) {
                assertThat(System.nanoTime()).as("the burst arrived within 10 s").isLessThan(deadline);
                LockSupport.parkNanos(100_000);
            }
            byte[] head = new byte[9];
            byte[] payload = new byte[FRAME - 9];
            for (int frame = 0; frame < 3; frame++) {
                int got = in.awaitRead(head, 0, head.length, buffered);
                assertThat(got).isPositive();
                readFully(in, head, got);
                readFully(in, payload, 0);
            }
            if (!buffered) {
                assertThat(in.holdsBuffer()).as("the buffer the payloads were read into, until the next wait")
                        .isTrue();
                client.shutdownOutput();
                assertThat(in.awaitRead(head, 0, head.length, false)).isEqualTo(-1);
                assertThat(in.holdsBuffer()).as("a buffer held by a wait with nothing in flight").isFalse();
                return reads.get() - 1; // the last read saw the end of the stream
            }
            return reads.get();
        }
    }

    private static void readFully(FrameInput in, byte[] b, int from) throws IOException {
        for (int off = from; off < b.length; ) {
            int n = in.read(b, off, b.length - off);
            assertThat(n).isPositive();
            off += n;
        }
    }
}
