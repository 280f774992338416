package io.loomgate.http2;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.loomgate.http.Headers;
import java.io.FilterInputStream;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * An origin that ends an idle connection (GOAWAY naming the last stream it processed, then its close) while the
 * gateway's reader has not yet read that GOAWAY (a virtual thread not yet scheduled at load ~30: journal
 * 2026-12-01-s55-h2goaway), and a request thread that opens a stream on it meanwhile: the write of its frames fails
 * on the closed socket. The stream is above the GOAWAY's last stream, so the origin never processed it (RFC 9113
 * §6.8): it must fail as refused, which any method may retry on another connection, never as a plain write failure
 * (a POST was answered 502). The reader is held by a gate on its input after it took the GOAWAY's bytes from the
 * socket, and the connection's output fails on command as the socket's does after the origin's RST.
 */
class WriteAfterUnreadGoAwayTest {
    /** Input whose reads, once {@link #hold} is set, keep what they read until {@link #release}. */
    private static final class GatedInput extends FilterInputStream {
        volatile boolean hold;
        final CountDownLatch heldSomething = new CountDownLatch(1);
        final CountDownLatch gate = new CountDownLatch(1);

        GatedInput(InputStream in) {
            super(in);
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            int n = super.read(b, off, len);
            if (hold) {
                heldSomething.countDown();
                try {
                    if (!gate.await(20, TimeUnit.SECONDS)) {
                        throw new IOException("gate never opened");
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IOException(e);
                }
            }
            return n;
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
        }

        void release() {
            gate.countDown();
        }
    }

    /**
     * Output that fails every write once broken, as a socket's after the origin's RST; the first failed write then
     * lets the held reader go on, so the write fails before the reader handles the GOAWAY, the interleaving at load.
     */
    private static final class BreakableOutput extends FilterOutputStream {
        volatile boolean broken;
        volatile Runnable onFailedWrite = () -> { };

        BreakableOutput(OutputStream out) {
            super(out);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            fail();
            out.write(b, off, len);
        }

        private void fail() throws IOException {
            if (broken) {
                onFailedWrite.run();
                throw new IOException("Broken pipe");
            }
        }

        @Override
        public void write(int b) throws IOException {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void flush() throws IOException {
            fail();
            out.flush();
        }
    }

    private ScriptedOriginPair pair;
    private Socket origin;
    private FrameWriter toClient;
    private GatedInput input;
    private BreakableOutput output;
    private Http2ClientConnection conn;

    @BeforeEach
    void connect() throws IOException {
        pair = ScriptedOriginPair.connect(in -> input = new GatedInput(in), out -> output = new BreakableOutput(out));
        origin = pair.origin;
        toClient = pair.toClient;
        conn = pair.conn;
    }

    @AfterEach
    void close() throws IOException {
        input.release();
        pair.close();
    }

    private static long in(int seconds) {
        return System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    }

    /** Reads frames from the client until one of this type on this stream. */
    private void await(int type, int stream) throws IOException {
        pair.await(type, stream);
    }

    /** Stream 1, answered whole: the connection has carried a request and sits idle, as a pooled one does. */
    private void oneAnsweredStream() throws IOException {
        assertThat(conn.tryReserve()).isTrue();
        Http2ClientStream s = conn.open("GET", "http", "origin", "/", new Headers(), true);
        await(Frames.HEADERS, s.id());
        HeaderBlock block = new HeaderBlock(16);
        HpackEncoder.field(block, ":status", "200");
        toClient.headers(s.id(), block.toByteArray(), 16_384, true);
        assertThat(s.awaitHead(in(10)).status()).isEqualTo(200);
        assertThat(s.isComplete()).isTrue();
    }

    /**
     * The origin ends the idle connection, GOAWAY(last) and its close; the reader has taken the GOAWAY's bytes from
     * the socket but is held before it handles them; the socket's writes fail from now on.
     */
    private void originEndsWhileTheReaderIsHeld(int last) throws Exception {
        input.hold = true;
        toClient.goAway(last, Frames.NO_ERROR, "idle timeout");
        origin.shutdownOutput();
        assertThat(input.heldSomething.await(10, TimeUnit.SECONDS)).as("the reader read the GOAWAY's bytes").isTrue();
        output.broken = true;
        assertThat(conn.isUsable()).as("the GOAWAY is unread: the connection still looks usable").isTrue();
    }

    /** The held reader goes on once a write has failed (the request thread then waits for its verdict). */
    private void releaseOnFailedWrite() {
        output.onFailedWrite = input::release;
    }

    @Test
    void aHeadersWriteThatFailsBeforeTheUnreadGoAwayIsRefused() throws Exception {
        oneAnsweredStream();
        originEndsWhileTheReaderIsHeld(1);
        assertThat(conn.tryReserve()).isTrue();
        releaseOnFailedWrite();
        assertThatThrownBy(() -> conn.open("POST", "http", "origin", "/", new Headers(), false))
                .isInstanceOfSatisfying(Http2StreamException.class, e -> assertThat(e.refused())
                        .as("stream 3 is above the GOAWAY's last stream 1: never processed").isTrue());
    }

    @Test
    void aBodyWriteThatFailsBeforeTheUnreadGoAwayRefusesTheStream() throws Exception {
        oneAnsweredStream();
        assertThat(conn.tryReserve()).isTrue();
        input.hold = true;
        Http2ClientStream s = conn.open("POST", "http", "origin", "/", new Headers(), false);
        await(Frames.HEADERS, s.id());
        // the origin had sent its GOAWAY (last stream 1) before stream 3's HEADERS reached it, then closed
        toClient.goAway(1, Frames.NO_ERROR, "idle timeout");
        origin.shutdownOutput();
        assertThat(input.heldSomething.await(10, TimeUnit.SECONDS)).isTrue();
        output.broken = true;
        releaseOnFailedWrite();
        assertThatThrownBy(() -> s.requestBody().write(new byte[100]))
                .isInstanceOfSatisfying(Http2StreamException.class, e -> assertThat(e.refused()).isTrue());
        s.cancel(); // what the upload beside does after its write failed: the refusal stands
        assertThatThrownBy(() -> s.awaitHead(in(10)))
                .isInstanceOfSatisfying(Http2StreamException.class, e -> assertThat(e.refused()).isTrue());
    }

    /** The reservation came before the GOAWAY and the origin's close were read: refused, not "closed". */
    @Test
    void aStreamReservedBeforeTheGoAwayAndCloseWereReadIsRefused() throws Exception {
        oneAnsweredStream();
        assertThat(conn.tryReserve()).isTrue();
        toClient.goAway(1, Frames.NO_ERROR, "idle timeout");
        origin.shutdownOutput();
        long end = in(10);
        while (!conn.isDead()) {
            assertThat(System.nanoTime() - end).as("the reader read the GOAWAY and the end").isNegative();
            Thread.onSpinWait();
        }
        assertThatThrownBy(() -> conn.open("POST", "http", "origin", "/", new Headers(), false))
                .isInstanceOfSatisfying(Http2StreamException.class, e -> assertThat(e.refused()).isTrue());
    }

    @Test
    void aStreamReservedBeforeTheGoAwayWasReadIsRefusedWithoutAWrite() throws Exception {
        oneAnsweredStream();
        assertThat(conn.tryReserve()).isTrue();
        toClient.goAway(1, Frames.NO_ERROR, "idle timeout");
        long end = in(10);
        while (conn.isUsable()) {
            assertThat(System.nanoTime() - end).as("the reader read the GOAWAY").isNegative();
            Thread.onSpinWait();
        }
        assertThatThrownBy(() -> conn.open("GET", "http", "origin", "/", new Headers(), true))
                .isInstanceOfSatisfying(Http2StreamException.class, e -> assertThat(e.refused()).isTrue());
    }

    @Test
    void aWriteThatFailsBelowTheGoAwaysLastStreamIsNotRefused() throws Exception {
        oneAnsweredStream();
        assertThat(conn.tryReserve()).isTrue();
        input.hold = true;
        Http2ClientStream s = conn.open("POST", "http", "origin", "/", new Headers(), false);
        await(Frames.HEADERS, s.id());
        // the origin took stream 3 (it may be processing it) and then went away
        toClient.goAway(s.id(), Frames.NO_ERROR, "going away");
        origin.shutdownOutput();
        assertThat(input.heldSomething.await(10, TimeUnit.SECONDS)).isTrue();
        output.broken = true;
        releaseOnFailedWrite();
        assertThatThrownBy(() -> s.requestBody().write(new byte[100]))
                .satisfies(e -> assertThat(e instanceof Http2StreamException h && h.refused())
                        .as("stream 3 may have been processed: not refused (%s)", e).isFalse());
    }
}
