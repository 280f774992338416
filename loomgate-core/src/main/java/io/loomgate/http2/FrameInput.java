package io.loomgate.http2;

import java.io.IOException;
import java.io.InputStream;

/**
 * The connection's input as its frame reader reads it. Waiting for the next frame ({@link #awaitRead}) with no
 * stream in flight reads straight from the socket, so an idle connection holds no buffer. Once a frame has begun,
 * the rest of it is read with whatever frames came with it, in one read into a small buffer: a client's burst of
 * HEADERS frames costs a couple of reads instead of two per frame (its header, then its payload). While streams are
 * in flight the wait itself reads into that buffer, kept from one burst to the next, so the read that ends the wait
 * takes the whole burst: one read per burst instead of the frame header's 9 bytes and then the rest (W9's shape over
 * h2c: 3.9-4.0 reads per request before, 3.3-3.4 with it; HAProxy 1.8). Reads at least as large as the buffer (DATA
 * payloads) go straight to the socket. Reader thread only.
 *
 * <p>The bytes read before the connection knew it was HTTP/2 (the preface and what came with it) are its first
 * buffer, rather than a {@link java.io.SequenceInputStream} in front of the socket, which would stay in the chain (and
 * in the parked reader's stack, one frame deeper) for the connection's whole life.
 */
final class FrameInput extends InputStream {
    static final int BUFFER_SIZE = 4096;

    private final InputStream in;
    private byte[] buf;
    private int pos;
    private int lim;
    /** The drained buffer, kept for the next read while streams are in flight; dropped by an unbuffered wait. */
    private byte[] spare;

    /** @param alreadyRead read first, before the socket; taken over, not copied */
    FrameInput(InputStream in, byte[] alreadyRead) {
        this.in = in;
        if (alreadyRead.length > 0) {
            buf = alreadyRead;
            lim = alreadyRead.length;
        }
    }

    /**
     * Reads the first bytes of the next frame: from the buffer, else from the socket. With {@code buffered} (streams
     * in flight: more frames are coming) the read goes into a buffer, which also takes whatever came after those
     * bytes; without, straight into {@code b}, and no buffer is held while the connection waits.
     */
    int awaitRead(byte[] b, int off, int len, boolean buffered) throws IOException {
        if (pos < lim) {
            return fromBuffer(b, off, len);
        }
        if (!buffered) {
            spare = null;
            return in.read(b, off, len);
        }
        int n = fill();
        return n <= 0 ? n : fromBuffer(b, off, len);
    }

    /** Whether a buffer is held, drained or not (for tests: an idle connection's wait holds none). */
    boolean holdsBuffer() {
        return buf != null || spare != null;
    }

    /** Whether bytes of the next frames are buffered here (then the connection is not idle: it may not park). */
    boolean holdsBytes() {
        return pos < lim;
    }

    @Override
    public int read() throws IOException {
        byte[] one = new byte[1];
        int n = read(one, 0, 1);
        return n < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        if (len == 0) {
            return 0;
        }
        if (pos < lim) {
            return fromBuffer(b, off, len);
        }
        if (len >= BUFFER_SIZE) {
            return in.read(b, off, len);
        }
        int n = fill();
        return n <= 0 ? n : fromBuffer(b, off, len);
    }

    /** One read from the socket into the spare buffer (or a new one), which becomes the buffer if bytes came. */
    private int fill() throws IOException {
        byte[] into = spare != null ? spare : new byte[BUFFER_SIZE];
        int n = in.read(into, 0, into.length);
        if (n > 0) {
            spare = null;
            buf = into;
            pos = 0;
            lim = n;
        } else {
            spare = into;
        }
        return n;
    }

    private int fromBuffer(byte[] b, int off, int len) {
        int n = Math.min(len, lim - pos);
        System.arraycopy(buf, pos, b, off, n);
        pos += n;
        if (pos == lim) {
            // Kept for the next read: the next wait drops it if no stream is in flight by then. The bytes read
            // before the connection knew it was HTTP/2 came in an array of another size, which is not kept.
            spare = buf.length == BUFFER_SIZE ? buf : null;
            buf = null;
            pos = 0;
            lim = 0;
        }
        return n;
    }

    @Override
    public int available() throws IOException {
        return pos < lim ? lim - pos : in.available();
    }
}
