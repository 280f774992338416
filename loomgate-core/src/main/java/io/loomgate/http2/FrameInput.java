package io.loomgate.http2;

import io.loomgate.http.BufferPool;
import io.loomgate.threads.BulkInputStream;
import java.io.IOException;
import java.io.InputStream;

/**
 * The connection's input as its frame reader reads it. Waiting for the next frame ({@link #awaitRead}) reads
 * straight from the socket when nothing is buffered, so an idle connection holds no buffer. Once a frame has begun,
 * the rest of it is read with whatever frames came with it, in one read into a buffer borrowed from the
 * {@link BufferPool} and given back as soon as it is drained: a client's burst of HEADERS frames costs a couple of
 * reads instead of two per frame (its header, then its payload), and no allocation (a fresh array per burst was a
 * third of the gateway's allocation at W9). Reads at least as large as the buffer (DATA payloads) go straight to the
 * socket. Reader thread only.
 *
 * <p>The bytes read before the connection knew it was HTTP/2 (the preface and what came with it) are its first
 * buffer, rather than a {@link java.io.SequenceInputStream} in front of the socket, which would stay in the chain (and
 * in the parked reader's stack, one frame deeper) for the connection's whole life.
 */
final class FrameInput extends BulkInputStream {
    static final int BUFFER_SIZE = BufferPool.SIZE;

    private final InputStream in;
    /** Whether short reads gather what follows into a pooled buffer (the server's); else every read is the socket's. */
    private final boolean buffered;
    private byte[] buf;
    /** {@link #buf} came from the pool and goes back to it when drained (the first bytes' array did not). */
    private boolean pooled;
    private int pos;
    private int lim;

    /** @param alreadyRead read first, before the socket; taken over, not copied */
    FrameInput(InputStream in, byte[] alreadyRead) {
        this(in, alreadyRead, true);
    }

    /**
     * An input that reads straight from {@code in} each time: the client side's, whose origins send few frames in a
     * burst and whose idle connections are few.
     */
    static FrameInput unbuffered(InputStream in) {
        return new FrameInput(in, new byte[0], false);
    }

    private FrameInput(InputStream in, byte[] alreadyRead, boolean buffered) {
        this.in = in;
        this.buffered = buffered;
        if (alreadyRead.length > 0) {
            buf = alreadyRead;
            lim = alreadyRead.length;
        }
    }

    /** Reads the first bytes of the next frame: from the buffer, or straight from the socket (no buffer held). */
    int awaitRead(byte[] b, int off, int len) throws IOException {
        if (pos < lim) {
            return fromBuffer(b, off, len);
        }
        return in.read(b, off, len);
    }

    /** Whether bytes of the next frames are buffered here (then the connection is not idle: it may not park). */
    boolean holdsBytes() {
        return pos < lim;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        if (len == 0) {
            return 0;
        }
        if (pos < lim) {
            return fromBuffer(b, off, len);
        }
        if (len >= BUFFER_SIZE || !buffered) {
            return in.read(b, off, len);
        }
        byte[] borrowed = BufferPool.take(BUFFER_SIZE);
        int n;
        try {
            n = in.read(borrowed, 0, BUFFER_SIZE);
        } catch (IOException | RuntimeException e) {
            BufferPool.give(borrowed);
            throw e;
        }
        if (n <= 0) {
            BufferPool.give(borrowed);
            return n;
        }
        buf = borrowed;
        pooled = true;
        pos = 0;
        lim = n;
        return fromBuffer(b, off, len);
    }

    private int fromBuffer(byte[] b, int off, int len) {
        int n = Math.min(len, lim - pos);
        System.arraycopy(buf, pos, b, off, n);
        pos += n;
        if (pos == lim) {
            if (pooled) {
                BufferPool.give(buf);
                pooled = false;
            }
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
