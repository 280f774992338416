package io.loomgate.http1;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.http.HttpLimits;
import io.loomgate.http.RequestHead;
import io.loomgate.threads.ConnectionExecutors;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * While a body's sender is silent, waiting for its next byte ({@link BodyInputStream#awaitData()}) holds no read
 * buffer: thousands of slow uploads then cost no buffer memory. The next piece arrives whole, not byte by byte.
 */
class SilentSenderHoldsNoBufferTest {

    @Test
    void awaitingTheNextPieceOfAFixedBodyHoldsNoBuffer() throws Exception {
        check("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 10\r\n\r\nab", "cdef");
    }

    @Test
    void awaitingTheNextChunkHoldsNoBuffer() throws Exception {
        check("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nab\r\n", "4\r\ncdef\r\n");
    }

    private static void check(String first, String next) throws Exception {
        PipedOutputStream client = new PipedOutputStream();
        PipedInputStream socket = new PipedInputStream(client, 1 << 16);
        HttpInput in = new HttpInput(socket, 8192, HttpLimits.DEFAULTS);
        client.write(first.getBytes(StandardCharsets.US_ASCII));
        RequestHead head = in.readRequestHead();
        BodyInputStream body = BodyFraming.ofRequest(head).open(in, HttpLimits.DEFAULTS);
        byte[] b = new byte[64];
        assertThat(new String(b, 0, body.read(b, 0, b.length), StandardCharsets.US_ASCII)).isEqualTo("ab");

        AtomicBoolean arrived = new AtomicBoolean();
        Thread waiter = ConnectionExecutors.startVirtual("await", () -> {
            try {
                arrived.set(body.awaitData());
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        });
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (waiter.getState() == Thread.State.RUNNABLE && System.nanoTime() < deadline) {
            LockSupport.parkNanos(1_000_000);
        }
        assertThat(waiter.isAlive()).as("awaitData waits for the sender").isTrue();
        assertThat(in.holdsBuffer()).as("a buffer held while the sender is silent").isFalse();

        client.write(next.getBytes(StandardCharsets.US_ASCII));
        assertThat(waiter.join(Duration.ofSeconds(10))).isTrue();
        assertThat(arrived).isTrue();
        assertThat(new String(b, 0, body.read(b, 0, b.length), StandardCharsets.US_ASCII)).isEqualTo("cdef");
    }
}
