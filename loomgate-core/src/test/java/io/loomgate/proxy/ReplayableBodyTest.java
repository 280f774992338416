package io.loomgate.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.loomgate.http1.BodyInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The replay buffer's passes (issue 34): a retry takes the body over from an attempt whose upload beside is still
 * blocked reading the client, without cutting the client and without losing what that read brings in.
 */
class ReplayableBodyTest {
    private static final long WAIT_SECONDS = 10;

    /** A client body fed piece by piece by the test; a read blocks until a piece (or the end) comes, within a deadline. */
    private static final class FedBody extends BodyInputStream {
        private static final byte[] END = new byte[0];
        private final BlockingQueue<byte[]> pieces = new LinkedBlockingQueue<>();
        private volatile boolean complete;
        /** Released as each read of the client begins. */
        final java.util.concurrent.Semaphore readsBegun = new java.util.concurrent.Semaphore(0);

        void feed(String s) {
            pieces.add(s.getBytes(StandardCharsets.US_ASCII));
        }

        void end() {
            pieces.add(END);
        }

        @Override
        public int read() throws IOException {
            throw new UnsupportedOperationException();
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            readsBegun.release();
            if (complete) {
                return -1;
            }
            byte[] p;
            try {
                p = pieces.poll(WAIT_SECONDS, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                throw new IOException(e);
            }
            if (p == null) {
                throw new IOException("no piece within the test's deadline");
            }
            if (p == END) {
                complete = true;
                return -1;
            }
            System.arraycopy(p, 0, b, off, p.length); // the test's pieces are smaller than its reads
            return p.length;
        }

        @Override
        public boolean isComplete() {
            return complete;
        }
    }

    private static String read(BodyInputStream in) throws IOException {
        byte[] b = new byte[64];
        int n = in.read(b, 0, b.length);
        return n < 0 ? null : new String(b, 0, n, StandardCharsets.US_ASCII);
    }

    @Test
    void aRetryTakesTheBodyOverFromAnUploadStillWaitingForTheClient() throws Exception {
        FedBody client = new FedBody();
        ReplayableBody body = new ReplayableBody(client, 1024);
        BodyInputStream first = body.current();
        client.feed("abc");
        assertThat(read(first)).isEqualTo("abc");
        // The first attempt's upload waits for the client's next piece (a client that waits for an echo first).
        CompletableFuture<String> inFlight = CompletableFuture.supplyAsync(() -> {
            try {
                return read(first);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }, Executors.newVirtualThreadPerTaskExecutor()); // a thread of its own: the common pool may have one
        assertThat(client.readsBegun.tryAcquire(2, WAIT_SECONDS, TimeUnit.SECONDS)).as("the upload waits").isTrue();
        BodyInputStream second = body.rewind();
        assertThat(second).isNotNull();
        // The kept bytes are replayed at once, while the retired pass still waits for the client.
        CompletableFuture<String> replayed = CompletableFuture.supplyAsync(() -> {
            try {
                return read(second);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }, Executors.newVirtualThreadPerTaskExecutor());
        assertThat(replayed.get(WAIT_SECONDS, TimeUnit.SECONDS)).isEqualTo("abc");
        // The piece that the retired pass's read brings in is the new pass's next bytes: nothing lost, nothing twice.
        client.feed("def");
        assertThat(inFlight.get(WAIT_SECONDS, TimeUnit.SECONDS)).isEqualTo("def");
        assertThat(read(second)).isEqualTo("def");
        assertThatThrownBy(() -> read(first)).as("a retired pass reads no more").isInstanceOf(IOException.class);
        client.feed("ghi");
        assertThat(read(second)).isEqualTo("ghi");
        client.end();
        assertThat(read(second)).isNull();
        assertThat(second.isComplete()).isTrue();
        assertThat(body.replayable()).isTrue();
    }

    @Test
    void aBodyOverTheLimitStaysWithItsPassAndCannotBeReplayed() throws Exception {
        FedBody client = new FedBody();
        ReplayableBody body = new ReplayableBody(client, 4);
        BodyInputStream first = body.current();
        client.feed("abcdef");
        assertThat(read(first)).isEqualTo("abcdef");
        assertThat(body.replayable()).isFalse();
        assertThat(body.rewind()).as("no replay past the limit").isNull();
        client.feed("gh");
        assertThat(read(first)).as("the pass reading the client goes on").isEqualTo("gh");
    }
}
