package io.loomgate.http1;

import static io.loomgate.http1.Wire.bytes;
import static io.loomgate.http1.Wire.lines;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.loomgate.http.BufferPool;
import io.loomgate.http.HttpLimits;
import io.loomgate.testkit.ChunkyInputStream;
import java.io.ByteArrayInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The read buffer: absent while idle, bypassed by large reads, never read past what a head or body needs. */
class HttpInputBufferTest {

    /** Records, for each read on the socket, whether HttpInput held a buffer at that moment and how much was asked. */
    static final class WatchedStream extends InputStream {
        final ChunkyInputStream data;
        final List<Boolean> heldBuffer = new ArrayList<>();
        final List<Integer> asked = new ArrayList<>();
        final List<byte[]> arrays = new ArrayList<>();
        HttpInput owner;

        WatchedStream(ChunkyInputStream data) {
            this.data = data;
        }

        @Override
        public int read() throws IOException {
            throw new AssertionError("HttpInput must not read the socket byte by byte");
        }

        @Override
        public int read(byte[] b, int off, int len) {
            heldBuffer.add(owner.holdsBuffer());
            asked.add(len);
            arrays.add(b);
            return data.read(b, off, len);
        }
    }

    /** What a head parser sizes its field list by: the buffered lines up to the empty one, not past it. */
    @Test
    void countsTheBufferedFieldLinesOfAHead() throws IOException {
        String two = lines("GET /a HTTP/1.1", "Host: h", "Accept: */*", "X-A: 1", "") + lines("GET /b HTTP/1.1",
                "Host: h", "");
        HttpInput in = new HttpInput(new ByteArrayInputStream(bytes(two)), 1024, HttpLimits.DEFAULTS);
        in.consumeTo(in.nextLine(1000) + 1); // the request line
        assertThat(in.fieldLinesBuffered(64)).isEqualTo(3);
        assertThat(in.fieldLinesBuffered(2)).isEqualTo(2);
        HttpInput again = new HttpInput(new ByteArrayInputStream(bytes(two)), 1024, HttpLimits.DEFAULTS);
        assertThat(again.readRequestHead().headers().size()).isEqualTo(3);
        again.consumeTo(again.nextLine(1000) + 1); // the second request line
        assertThat(again.fieldLinesBuffered(64)).isEqualTo(1);
    }

    @Test
    void holdsNoBufferWhileWaitingForTheNextRequest() throws IOException {
        String two = lines("GET /a HTTP/1.1", "Host: h", "") + lines("GET /b HTTP/1.1", "Host: h", "");
        // The second request arrives in a later socket read, as on an idle keep-alive connection.
        WatchedStream socket = new WatchedStream(new ChunkyInputStream(bytes(two), "two reads", two.length() / 2));
        HttpInput in = new HttpInput(socket, 1024, HttpLimits.DEFAULTS);
        socket.owner = in;

        assertThat(in.holdsBuffer()).isFalse();
        assertThat(in.awaitData()).isTrue();
        assertThat(socket.asked).containsExactly(1); // a one-byte read while idle
        assertThat(socket.heldBuffer).containsExactly(false);
        assertThat(in.readRequestHead().target()).isEqualTo("/a");
        assertThat(in.awaitData()).isTrue(); // /b is already buffered: nothing to wait for
        assertThat(in.readRequestHead().target()).isEqualTo("/b");

        int readsBefore = socket.asked.size();
        assertThat(in.awaitData()).isFalse();
        assertThat(socket.heldBuffer.get(readsBefore)).as("buffer dropped before the idle wait").isFalse();
        assertThat(in.holdsBuffer()).isFalse();
    }

    @Test
    void aBusyConnectionsWaitTakesTheWholeRequestInOneRead() throws IOException {
        String two = lines("GET /a HTTP/1.1", "Host: h", "") + lines("GET /b HTTP/1.1", "Host: h", "");
        WatchedStream socket = new WatchedStream(new ChunkyInputStream(bytes(two), "one request a read",
                two.length() / 2));
        HttpInput in = new HttpInput(socket, BufferPool.SIZE, HttpLimits.DEFAULTS);
        socket.owner = in;

        BufferPool.give(new byte[BufferPool.SIZE]);
        assertThat(in.awaitDataBuffered()).isTrue();
        assertThat(in.readRequestHead().target()).isEqualTo("/a");
        BufferPool.give(new byte[BufferPool.SIZE]);
        assertThat(in.awaitDataBuffered()).isTrue();
        assertThat(in.readRequestHead().target()).isEqualTo("/b");
        // one read per request, each into a whole buffer (the one-byte wait needs two)
        assertThat(socket.asked).containsExactly(BufferPool.SIZE, BufferPool.SIZE);

        assertThat(in.awaitDataBuffered()).isFalse();
        assertThat(in.holdsBuffer()).as("no buffer kept once the stream ended").isFalse();
    }

    @Test
    void aBusyWaitWithNoRecycledBufferWaitsForOneByteHoldingNone() throws IOException {
        while (BufferPool.takeRecycled() != null) {
            // empty the pool: the wait must not allocate a buffer to hold while it waits
        }
        String one = lines("GET /a HTTP/1.1", "Host: h", "");
        WatchedStream socket = new WatchedStream(ChunkyInputStream.whole(bytes(one)));
        HttpInput in = new HttpInput(socket, BufferPool.SIZE, HttpLimits.DEFAULTS);
        socket.owner = in;
        assertThat(in.awaitDataBuffered()).isTrue();
        assertThat(socket.asked.get(0)).isEqualTo(1);
        assertThat(socket.heldBuffer.get(0)).isFalse();
        assertThat(in.readRequestHead().target()).isEqualTo("/a");
    }

    @Test
    void theWaitForAnOriginsAnswerHoldsNoBufferWhenThePoolHasNoneFree() throws IOException {
        while (BufferPool.takeRecycled() != null) {
            // empty the pool, as thousands of requests in flight do: the wait must not allocate a buffer to hold
        }
        String response = lines("HTTP/1.1 200 OK", "Content-Length: 2", "") + "ok";
        WatchedStream origin = new WatchedStream(ChunkyInputStream.whole(bytes(response)));
        HttpInput in = new HttpInput(origin, BufferPool.SIZE, HttpLimits.DEFAULTS);
        origin.owner = in;
        assertThat(in.readResponseHead().status()).isEqualTo(200);
        assertThat(origin.asked.get(0)).as("the wait reads one byte").isEqualTo(1);
        assertThat(origin.heldBuffer.get(0)).as("holding no buffer").isFalse();
        assertThat(in.read()).isEqualTo('o');
    }

    @Test
    void theWaitForAnOriginsAnswerTakesTheWholeHeadInOneReadWhenThePoolHasABuffer() throws IOException {
        String response = lines("HTTP/1.1 200 OK", "Content-Length: 2", "") + "ok";
        WatchedStream origin = new WatchedStream(ChunkyInputStream.whole(bytes(response)));
        HttpInput in = new HttpInput(origin, BufferPool.SIZE, HttpLimits.DEFAULTS);
        origin.owner = in;
        BufferPool.give(new byte[BufferPool.SIZE]);
        assertThat(in.readResponseHead().status()).isEqualTo(200);
        assertThat(origin.asked).containsExactly(BufferPool.SIZE);
        assertThat(in.read()).isEqualTo('o');
    }

    @Test
    void anOriginThatClosesBeforeAnsweringIsAnEndOfStreamAsBefore() {
        while (BufferPool.takeRecycled() != null) {
            // the one-byte wait, which sees the end first
        }
        HttpInput in = new HttpInput(ChunkyInputStream.whole(new byte[0]), BufferPool.SIZE, HttpLimits.DEFAULTS);
        assertThatThrownBy(in::readResponseHead).isInstanceOf(EOFException.class);
        assertThat(in.holdsBuffer()).isFalse();
    }

    @Test
    void aBusyWaitThatFailsGivesItsBufferBack() {
        InputStream failing = new InputStream() {
            @Override
            public int read() {
                throw new AssertionError("not byte by byte");
            }

            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                throw new java.net.SocketTimeoutException("idle");
            }
        };
        HttpInput in = new HttpInput(failing, BufferPool.SIZE, HttpLimits.DEFAULTS);
        BufferPool.give(new byte[BufferPool.SIZE]);
        assertThatThrownBy(in::awaitDataBuffered).isInstanceOf(java.net.SocketTimeoutException.class);
        assertThat(in.holdsBuffer()).isFalse();
    }

    @Test
    void aHeadWithNothingAfterItLeavesNoBufferHeldWhileItsAnswerIsAwaited() throws IOException {
        HttpInput in = Wire.input(lines("GET /a HTTP/1.1", "Host: h", ""));
        assertThat(in.readRequestHead().target()).isEqualTo("/a");
        assertThat(in.holdsBuffer()).as("buffer held while the request waits for its origin").isFalse();

        HttpInput origin = Wire.input(lines("HTTP/1.1 200 OK", "Content-Length: 2", ""));
        assertThat(origin.readResponseHead().status()).isEqualTo(200);
        assertThat(origin.holdsBuffer()).as("buffer held while the body has not come").isFalse();
    }

    @Test
    void bytesAfterAHeadKeepTheBufferForTheNextReader() throws IOException {
        HttpInput in = Wire.input(lines("GET /a HTTP/1.1", "Host: h", "") + lines("GET /b HTTP/1.1", "Host: h", ""));
        assertThat(in.readRequestHead().target()).isEqualTo("/a");
        assertThat(in.holdsBuffer()).isTrue();
        assertThat(in.readRequestHead().target()).isEqualTo("/b");
        assertThat(in.holdsBuffer()).isFalse();

        HttpInput origin = Wire.input(lines("HTTP/1.1 200 OK", "Content-Length: 2", "") + "ok");
        assertThat(origin.readResponseHead().status()).isEqualTo(200);
        assertThat(origin.holdsBuffer()).isTrue();
        assertThat(origin.read()).isEqualTo('o');
    }

    @Test
    void largeReadsGoStraightIntoTheCallersArray() throws IOException {
        WatchedStream socket = new WatchedStream(ChunkyInputStream.whole(new byte[5000]));
        HttpInput in = new HttpInput(socket, 64, HttpLimits.DEFAULTS);
        socket.owner = in;
        byte[] mine = new byte[4096];
        assertThat(in.read(mine, 0, mine.length)).isEqualTo(4096);
        assertThat(socket.arrays).containsExactly(mine);
        assertThat(in.holdsBuffer()).isFalse();
        byte[] small = new byte[10];
        assertThat(in.read(small, 0, 10)).isEqualTo(10); // through the buffer: one socket read of up to 64
        assertThat(socket.asked).containsExactly(4096, 64);
        assertThat(in.buffered()).isEqualTo(54);
    }

    @Test
    void readReturnsBufferedBytesBeforeTouchingTheSocket() throws IOException {
        WatchedStream socket = new WatchedStream(ChunkyInputStream.whole(bytes("abcdef")));
        HttpInput in = new HttpInput(socket, 64, HttpLimits.DEFAULTS);
        socket.owner = in;
        assertThat(in.read()).isEqualTo('a');
        assertThat(in.available()).isEqualTo(5);
        byte[] b = new byte[100];
        assertThat(in.read(b, 0, 100)).isEqualTo(5);
        assertThat(socket.asked).hasSize(1);
        assertThat(in.read(b, 0, 100)).isEqualTo(-1);
    }

    @Test
    void cleanEndBeforeARequestIsNullButAnEndInsideOneIsAnError() throws IOException {
        assertThat(Wire.input("").readRequestHead()).isNull();
        assertThat(Wire.input("\r\n").readRequestHead()).isNull();
        assertThatThrownBy(() -> Wire.input("GET / HT").readRequestHead()).isInstanceOf(EOFException.class);
        assertThatThrownBy(() -> Wire.input("GET / HTTP/1.1\r\nHost: h\r\n").readRequestHead())
                .isInstanceOf(EOFException.class);
    }

    @Test
    void headsBiggerThanTheBufferGrowItUpToTheLimit() throws IOException {
        String value = "v".repeat(5000);
        HttpInput in = new HttpInput(new ByteArrayInputStream(
                bytes(lines("GET /" + "p".repeat(3000) + " HTTP/1.1", "Host: h", "X-Big: " + value, ""))),
                16, HttpLimits.DEFAULTS);
        assertThat(in.readRequestHead().headers().first("X-Big")).isEqualTo(value);
    }

    @Test
    void limitsAreExactBoundaries() throws IOException {
        HttpLimits limits = new HttpLimits(32, 64, 3, 8, 0);
        String line = "GET /" + "a".repeat(32 - 14) + " HTTP/1.1"; // exactly 32 bytes
        assertThat(line).hasSize(32);
        String fields = "Host: h\r\n" + "X: " + "y".repeat(64 - 9 - 5 - 2) + "\r\n"; // section exactly 64 with CRLF
        assertThat(fields.length() + 2).isEqualTo(64);
        assertThat(new HttpInput(new ByteArrayInputStream(bytes(line + "\r\n" + fields + "\r\n")), 8, limits)
                .readRequestHead()).isNotNull();
        assertThatThrownBy(() -> new HttpInput(new ByteArrayInputStream(
                bytes("GET /a" + line.substring(5) + "\r\n" + fields + "\r\n")), 8, limits).readRequestHead())
                .isInstanceOfSatisfying(HttpParseException.class, e -> assertThat(e.status()).isEqualTo(414));
        assertThatThrownBy(() -> new HttpInput(new ByteArrayInputStream(
                bytes(line + "\r\n" + fields.replace("X: ", "X: y") + "\r\n")), 8, limits).readRequestHead())
                .isInstanceOfSatisfying(HttpParseException.class, e -> assertThat(e.status()).isEqualTo(431));
        assertThatThrownBy(() -> new HttpInput(new ByteArrayInputStream(
                bytes(line + "\r\nHost: h\r\nA: 1\r\nB: 2\r\nC: 3\r\n\r\n")), 8, limits).readRequestHead())
                .isInstanceOfSatisfying(HttpParseException.class, e -> assertThat(e.status()).isEqualTo(431));
    }
}
