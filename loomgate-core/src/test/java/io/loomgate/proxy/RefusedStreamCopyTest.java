package io.loomgate.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.loomgate.http1.BodyInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicReference;
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

    /** A client that gives the pieces the test offers, each when offered: a client that waits for its origin. */
    private static final class Trickle extends BodyInputStream {
        private static final byte[] END = new byte[0];
        final java.util.concurrent.BlockingQueue<byte[]> pieces = new java.util.concurrent.LinkedBlockingQueue<>();
        private byte[] current;
        private int at;
        private volatile boolean ended;

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (!awaitData()) {
                return -1;
            }
            int n = Math.min(len, current.length - at);
            System.arraycopy(current, at, b, off, n);
            at += n;
            return n;
        }

        @Override
        public boolean awaitData() throws IOException {
            if (ended) {
                return false;
            }
            if (current != null && at < current.length) {
                return true;
            }
            try {
                current = pieces.poll(10, java.util.concurrent.TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                throw new java.io.InterruptedIOException();
            }
            if (current == null) {
                throw new java.net.SocketTimeoutException("no piece within 10 s");
            }
            at = 0;
            ended = current == END;
            return !ended;
        }

        @Override
        public int available() {
            return current == null || ended ? 0 : current.length - at;
        }

        @Override
        public boolean isComplete() {
            return ended;
        }
    }

    /** An origin's stream shared with the test's thread; once {@code dead} its writes fail (a refused stream). */
    private static final class Stream extends OutputStream {
        private final ByteArrayOutputStream got = new ByteArrayOutputStream();
        volatile boolean dead;

        @Override
        public void write(int b) {
            throw new UnsupportedOperationException();
        }

        @Override
        public synchronized void write(byte[] b, int off, int len) throws IOException {
            if (dead) {
                throw new IOException("stream refused");
            }
            got.write(b, off, len);
        }

        synchronized byte[] sent() {
            return got.toByteArray();
        }

        /** Waits (polling, with a deadline) until {@code n} bytes went through. */
        byte[] await(int n) throws InterruptedException {
            long end = System.nanoTime() + java.time.Duration.ofSeconds(10).toNanos();
            while (sent().length < n) {
                assertThat(System.nanoTime()).as("%d bytes sent in time (%d so far)", n, sent().length)
                        .isLessThan(end);
                Thread.sleep(2);
            }
            return sent();
        }
    }

    /**
     * Session 58: a refusal while the upload waits for the client (which waits for the origin). The successor sends
     * the kept bytes at once, with the refused upload still blocked on the client; the piece that read was waiting
     * for goes to the successor's stream, not the dead one, after them; then the rest, read by the successor. One
     * reader at a time: the successor reads the client only after the refused upload's thread ended (joined).
     */
    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void aSuccessorSendsTheKeptBytesAtOnceThenThePendingReadThenTheRest(boolean sized) throws Exception {
        byte[] whole = body(5_000);
        long length = sized ? whole.length : -1;
        Trickle client = new Trickle();
        RefusedStreamCopy copy = new RefusedStreamCopy(client, 65_535, length);
        Stream refused = new Stream();
        AtomicReference<Throwable> firstEnd = new AtomicReference<>();
        Thread first = Thread.ofVirtual().start(() -> {
            try {
                Http2Codec.sendBody(copy, refused, length);
            } catch (Throwable t) {
                firstEnd.set(t);
            }
        });
        client.pieces.add(Arrays.copyOfRange(whole, 0, 3_000));
        assertThat(refused.await(3_000)).isEqualTo(Arrays.copyOf(whole, 3_000));
        // refused while its upload waits for the client's next piece
        RefusedStreamCopy next = copy.handOver(deadline -> {
            try {
                if (!first.join(java.time.Duration.ofNanos(Math.max(1, deadline - System.nanoTime())))) {
                    throw new java.net.SocketTimeoutException("the refused upload did not end");
                }
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
            return null; // its end was not the client's failure
        }, System.nanoTime() + java.time.Duration.ofSeconds(10).toNanos());
        assertThat(next).isNotNull();
        assertThat(copy.handOver(d -> null, 0)).as("one successor").isNull();
        refused.dead = true;
        Stream fresh = new Stream();
        AtomicReference<Throwable> nextEnd = new AtomicReference<>();
        Thread second = Thread.ofVirtual().start(() -> {
            try {
                Http2Codec.sendBody(next, fresh, length);
            } catch (Throwable t) {
                nextEnd.set(t);
            }
        });
        assertThat(fresh.await(3_000)).as("the kept bytes, at once").isEqualTo(Arrays.copyOf(whole, 3_000));
        assertThat(first.isAlive()).as("the refused upload still waits for the client").isTrue();
        client.pieces.add(Arrays.copyOfRange(whole, 3_000, 4_000)); // what the client sends once it got its echo
        assertThat(fresh.await(4_000)).as("the pending read's piece, on the fresh stream")
                .isEqualTo(Arrays.copyOf(whole, 4_000));
        assertThat(first.join(java.time.Duration.ofSeconds(10))).isTrue();
        // its write to the refused stream failed, or (the read path, BodyRelay wrapping what a read throws) its next
        // read found the body handed over: a WriteFailed either way, never the client's failure
        assertThat(firstEnd.get()).as("how the refused upload ended").isNotNull().satisfiesAnyOf(
                        t -> assertThat(t).isInstanceOf(BodyRelay.WriteFailed.class),
                        t -> assertThat(t.getCause()).isInstanceOf(BodyRelay.WriteFailed.class));
        client.pieces.add(Arrays.copyOfRange(whole, 4_000, 5_000));
        client.pieces.add(Trickle.END);
        assertThat(second.join(java.time.Duration.ofSeconds(10))).isTrue();
        assertThat(nextEnd.get()).isNull();
        assertThat(fresh.sent()).as("the whole body once, in order").isEqualTo(whole);
        assertThat(refused.sent()).isEqualTo(Arrays.copyOf(whole, 3_000));
        assertThat(next.rewind()).as("still kept for another refusal").isTrue();
    }
}
