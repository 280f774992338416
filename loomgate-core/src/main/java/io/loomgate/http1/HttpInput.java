package io.loomgate.http1;

import io.loomgate.http.BufferPool;
import io.loomgate.http.HttpLimits;
import io.loomgate.http.RequestHead;
import io.loomgate.http.ResponseHead;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;
import java.util.Arrays;
import java.util.Objects;

/**
 * The buffered reading side of one HTTP/1.1 connection, client or server: reads message heads and gives body
 * streams the bytes that follow them. Owned by the one thread that serves the connection.
 *
 * <p>While the connection is idle between messages ({@link #awaitData()}) it holds no read buffer, so an idle
 * keep-alive connection costs only its socket and its parked thread.
 *
 * <p>Invariant: the unread bytes are {@code buf[pos, lim)}; when that range is empty the buffer may be null. A head
 * that does not fit the buffer grows it, up to the limits of the part being read; bytes after a head or body stay in
 * the buffer for the next reader (pipelining).
 *
 * <p>A read that finds nothing buffered at the start of a message yields first ({@link #yieldBeforeWait}): the
 * peer was just written to (an origin's response head) or just answered (a client's next request), and by the time
 * the other ready threads have run, its bytes are often there, so the read takes them at once instead of parking.
 */
public final class HttpInput extends InputStream {
    /** {@link #nextLine} result: the stream ended before a line feed. */
    static final int EOF = -1;
    /** {@link #nextLine} result: the line is longer than allowed. */
    static final int TOO_LONG = -2;

    private final InputStream in;
    /** Reads the same socket as {@code in} into direct buffers, or null (TLS, tests over plain streams). */
    private final ReadableByteChannel direct;
    private final int bufferSize;
    private final HttpLimits limits;
    private final byte[] oneByte = new byte[1];
    private byte[] buf;
    private int pos;
    private int lim;

    /** @param in the socket's stream; @param bufferSize read buffer size (8 KiB typical) */
    public HttpInput(InputStream in, int bufferSize, HttpLimits limits) {
        this(in, null, bufferSize, limits);
    }

    /**
     * @param direct the same socket as {@code in}, as a channel with the same deadlines (see
     *               {@code WatchedInputStream.directReader()}), for {@link #read(ByteBuffer)}; null for none
     */
    public HttpInput(InputStream in, ReadableByteChannel direct, int bufferSize, HttpLimits limits) {
        if (bufferSize < 1) {
            throw new IllegalArgumentException("buffer size must be positive, got " + bufferSize);
        }
        this.in = Objects.requireNonNull(in, "in");
        this.direct = direct;
        this.bufferSize = bufferSize;
        this.limits = Objects.requireNonNull(limits, "limits");
    }

    /**
     * Blocks until at least one byte can be read, holding no buffer while it waits. Returns false on end of stream.
     * A socket read timeout surfaces as {@link java.net.SocketTimeoutException}.
     */
    public boolean awaitData() throws IOException {
        if (pos < lim) {
            return true;
        }
        BufferPool.give(buf);
        buf = null;
        pos = 0;
        lim = 0;
        yieldBeforeWait();
        int n;
        do {
            n = in.read(oneByte, 0, 1);
        } while (n == 0);
        if (n < 0) {
            return false;
        }
        buf = BufferPool.take(bufferSize);
        buf[0] = oneByte[0];
        lim = 1;
        return true;
    }

    /**
     * {@link #awaitData()} for a connection whose next message is expected soon (a busy keep-alive connection): waits
     * with a read buffer, so the read that ends the wait takes the whole message, where the one-byte wait needs a
     * second read for the rest (W2: one system call per request). Only a buffer the pool already holds is used: a
     * busy connection may still fall silent and wait to its idle timeout, and the buffers so held stay within the
     * pool's bound (with none free, this is the one-byte wait). The buffer goes back to the pool if the wait ends
     * without bytes: the end of the stream, a timeout or an error.
     */
    public boolean awaitDataBuffered() throws IOException {
        if (pos < lim) {
            return true;
        }
        if (buf == null && bufferSize == BufferPool.SIZE) {
            buf = BufferPool.takeRecycled();
        }
        if (buf == null) {
            return awaitData();
        }
        pos = 0;
        lim = 0;
        yieldBeforeWait();
        int n;
        try {
            do {
                n = in.read(buf, 0, buf.length);
            } while (n == 0);
        } catch (IOException | RuntimeException e) {
            releaseIfDrained();
            throw e;
        }
        if (n < 0) {
            releaseIfDrained();
            return false;
        }
        lim = n;
        return true;
    }

    /**
     * {@link #awaitData()} inside a body: once the first byte came, also takes what the socket already holds (without
     * blocking), so a slow peer's piece is relayed whole rather than its first byte alone.
     */
    boolean awaitBodyData() throws IOException {
        if (pos < lim) {
            return true;
        }
        if (!awaitData()) {
            return false;
        }
        int ready = in.available();
        if (ready > 0) {
            int n = in.read(buf, lim, Math.min(ready, buf.length - lim));
            if (n > 0) {
                lim += n;
            }
        }
        return true;
    }

    /**
     * Reads one request head (request line and fields, through the empty line). Returns null if the stream ended
     * cleanly before the first byte of a request. Leading empty lines are skipped (RFC 9112 §2.2).
     *
     * @throws HttpParseException with 400, 414, 431, 501 or 505 for a malformed or over-limit head
     * @throws java.io.EOFException if the stream ends inside the head
     */
    public RequestHead readRequestHead() throws IOException {
        RequestHead head = RequestHeadParser.parse(this, limits);
        releaseIfDrained();
        return head;
    }

    /**
     * Reads one response head (status line and fields). Informational (1xx) heads are returned like any other;
     * the caller loops.
     *
     * <p>With nothing buffered, the wait for the origin's answer is {@link #awaitDataBuffered}'s: into a buffer the
     * pool already holds, else for one byte holding none. A request waiting for its origin would otherwise hold an
     * 8 KiB buffer that holds nothing: with thousands of requests in flight to a slow origin, 8 KiB for each pooled
     * upstream connection (4,096 of them, 33 MB, at W1 with 10,000 connections) on the launcher's 192 MiB heap.
     *
     * @throws HttpParseException for a malformed head (the proxy answers 502)
     * @throws java.io.EOFException if the stream ends before or inside the head
     */
    public ResponseHead readResponseHead() throws IOException {
        if (pos == lim && !awaitDataBuffered()) {
            throw new EOFException("stream ended before the response head"); // as the parser says it
        }
        ResponseHead head = ResponseHeadParser.parse(this, limits);
        releaseIfDrained();
        return head;
    }

    /**
     * Before a read that would most likely wait, lets the carrier run the other virtual threads that are ready.
     * A virtual thread's read that finds no bytes costs a failed read (EAGAIN), an epoll registration, a park and
     * the poller's wake-up before the read that succeeds; under load the peer has usually answered by the time this
     * thread's turn comes again, and the read succeeds at once. W2 at 50 and 256 connections: 9.0-9.6 system calls
     * per request without, 5.4-6.0 with (docs/performance.md, issue 15). With no other thread ready the yield
     * returns at once. Platform threads do not yield (a {@code sched_yield} call would be one more system call).
     */
    private static void yieldBeforeWait() {
        if (Thread.currentThread().isVirtual()) {
            Thread.yield();
        }
    }

    /**
     * Gives the buffer back once a head was read and nothing follows it. A head's strings are copies, so the buffer
     * is not needed until the next read; without this, a request waiting for its origin (all of them, with a slow
     * origin and thousands of connections) would hold an 8 KiB buffer that holds nothing.
     */
    private void releaseIfDrained() {
        if (pos == lim && buf != null) {
            BufferPool.give(buf);
            buf = null;
            pos = 0;
            lim = 0;
        }
    }

    /**
     * Whether the unread input begins with {@code prefix}; reads until it is buffered or a byte differs, consumes
     * nothing. The server asks this of a connection's first bytes to tell an HTTP/2 preface from a request line.
     */
    public boolean startsWith(byte[] prefix) throws IOException {
        int matched = 0;
        while (true) {
            for (; matched < prefix.length && pos + matched < lim; matched++) {
                if (buf[pos + matched] != prefix[matched]) {
                    return false;
                }
            }
            if (matched == prefix.length) {
                return true;
            }
            if (fillForLine(prefix.length) < 0) {
                return false;
            }
        }
    }

    /** Hands over the unread bytes and gives the buffer back: the connection is leaving HTTP/1.1. */
    public byte[] takeBuffered() {
        byte[] rest = buf == null ? new byte[0] : Arrays.copyOfRange(buf, pos, lim);
        BufferPool.give(buf);
        buf = null;
        pos = 0;
        lim = 0;
        return rest;
    }

    /** Bytes already read from the socket and not yet consumed. */
    public int buffered() {
        return lim - pos;
    }

    @Override
    public int read() throws IOException {
        if (pos == lim && fill() <= 0) {
            return -1;
        }
        return buf[pos++] & 0xff;
    }

    /** Reads buffered bytes first, then from the socket: at most one socket read per call. */
    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        Objects.checkFromIndexSize(off, len, b.length);
        if (len == 0) {
            return 0;
        }
        if (pos == lim) {
            if (len >= bufferSize) {
                // A large read skips the buffer: one copy less, and nothing beyond len is taken from the socket.
                // The empty buffer goes back to the pool meanwhile: the read may wait long on a slow peer.
                if (buf != null) {
                    BufferPool.give(buf);
                    buf = null;
                }
                return in.read(b, off, len);
            }
            int n = fill();
            if (n <= 0) {
                return n < 0 ? -1 : 0;
            }
        }
        int n = Math.min(len, lim - pos);
        System.arraycopy(buf, pos, b, off, n);
        pos += n;
        return n;
    }

    /** Whether {@link #read(ByteBuffer)} reads the socket straight into a direct buffer. */
    boolean readsDirect() {
        return direct != null;
    }

    /**
     * Reads into {@code dst}: buffered bytes first, else one read of the socket's channel straight into it (for a
     * direct buffer, no copy in the JVM). At most {@code dst.remaining()} bytes; -1 at end of stream. Only when
     * {@link #readsDirect()}.
     */
    int read(ByteBuffer dst) throws IOException {
        if (!dst.hasRemaining()) {
            return 0;
        }
        if (pos < lim) {
            int n = Math.min(dst.remaining(), lim - pos);
            dst.put(buf, pos, n);
            pos += n;
            return n;
        }
        if (buf != null) { // the empty buffer goes back to the pool meanwhile: the read may wait long on a slow peer
            BufferPool.give(buf);
            buf = null;
            pos = 0;
            lim = 0;
        }
        return direct.read(dst);
    }

    @Override
    public int available() throws IOException {
        return pos < lim ? lim - pos : in.available();
    }

    /**
     * Discards up to {@code n} bytes (buffered ones first, else one socket read into the buffer); returns how many, or
     * -1 at end of stream. Lets bodies drain without a scratch array of their own.
     */
    long discard(long n) throws IOException {
        if (n <= 0) {
            return 0;
        }
        if (pos == lim) {
            int r = fill();
            if (r <= 0) {
                return r < 0 ? -1 : 0;
            }
        }
        int k = (int) Math.min(n, lim - pos);
        pos += k;
        return k;
    }

    /** Whether a read buffer is allocated (for tests of the idle-connection promise). */
    boolean holdsBuffer() {
        return buf != null;
    }

    byte[] buffer() {
        return buf;
    }

    int position() {
        return pos;
    }

    /**
     * How many field lines are buffered at the read position before the empty line that ends the section, counting
     * up to {@code most}: what a parser sizes its list by (all of them when the head arrived whole, as it nearly
     * always does; fewer, and the list grows as it fills, when it did not).
     */
    int fieldLinesBuffered(int most) {
        byte[] b = buf;
        int n = 0;
        int lineStart = pos;
        for (int i = pos; i < lim && n < most; i++) {
            if (b[i] == '\n') {
                if (i - lineStart <= 1) { // "\r\n" (or a bare "\n", which the parser refuses): the section's end
                    return n;
                }
                n++;
                lineStart = i + 1;
            }
        }
        return n;
    }

    /** Marks the buffer up to (excluding) {@code newPos} as consumed. */
    void consumeTo(int newPos) {
        pos = newPos;
    }

    /**
     * Makes sure a whole line starting at the read position is buffered and returns the index of its LF in
     * {@link #buffer()}; {@link #EOF} if the stream ended first, {@link #TOO_LONG} if the line holds more than
     * {@code maxContent} bytes before its CRLF. Scans each byte once however the line arrives.
     */
    int nextLine(int maxContent) throws IOException {
        int scanned = 0;
        while (true) {
            byte[] b = buf;
            int end = lim;
            for (int i = pos + scanned; i < end; i++) {
                if (b[i] == '\n') {
                    return i - pos > maxContent + 1L ? TOO_LONG : i;
                }
            }
            scanned = end - pos;
            if (scanned > maxContent + 1L) {
                return TOO_LONG;
            }
            if (fillForLine(maxContent + 2L) < 0) {
                return EOF;
            }
        }
    }

    /** One socket read appended to the unread bytes; compacts, or grows the buffer up to {@code capacity}. */
    private int fillForLine(long capacity) throws IOException {
        if (buf == null) {
            buf = BufferPool.take(bufferSize);
            pos = 0;
            lim = 0;
        } else if (pos == lim) {
            pos = 0;
            lim = 0;
        } else if (lim == buf.length) {
            int len = lim - pos;
            if (pos > 0) {
                System.arraycopy(buf, pos, buf, 0, len);
                pos = 0;
                lim = len;
            } else {
                // Only reached while the partial line is shorter than capacity, so the buffer really grows.
                buf = Arrays.copyOf(buf, (int) Math.min(2L * buf.length, Math.max(capacity, buf.length + 1L)));
            }
        }
        int n = in.read(buf, lim, buf.length - lim);
        if (n > 0) {
            lim += n;
        }
        return n;
    }

    /** One socket read into the empty buffer. */
    private int fill() throws IOException {
        if (buf == null) {
            buf = BufferPool.take(bufferSize);
        }
        pos = 0;
        lim = 0;
        int n = in.read(buf, 0, buf.length);
        if (n > 0) {
            lim = n;
        }
        return n;
    }
}
