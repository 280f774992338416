package io.loomgate.http2;

import io.loomgate.http.BufferPool;
import io.loomgate.http.GeneratedField;
import io.loomgate.http.Headers;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Writes frames to one connection for all its streams. A ReentrantLock (not synchronized: virtual threads block on
 * the socket while holding it) keeps each frame, and each header block with its CONTINUATION frames, contiguous.
 * Frames are built straight into one buffer (header and payload together, no array per frame), borrowed from the
 * {@link BufferPool} for each batch and given back once it is written.
 *
 * <p>Batching (the server connection): the thread that adds frames to an empty batch promises to write it, yields
 * once (so the other streams the scheduler has ready add their frames; the frame reader does not, see
 * {@link #readerIs}), then writes the whole batch and flushes: one
 * write, and over TLS one record, for many frames instead of one each. Under light load nothing else is ready and
 * the yield returns at once. A thread that adds to a promised batch returns without waiting; if the write then
 * fails, the connection is dead and its next frame fails ({@link #failed}). A batch of {@link #MAX_BATCH} bytes is
 * written at once by whoever fills it, so a batch never holds more than that plus one frame. {@link #flush} writes
 * what is gathered now: before the output is half-closed or the socket closed. Without batching (the client
 * connection) every call writes and flushes before it returns.
 *
 * <p>A header block (a response's, {@link #responseHeaders}; a request's to an origin, {@link #requestHeaders}) is
 * encoded under the lock straight into the batch, not built in an array of its own and copied in: the encoder is
 * stateless (no dynamic table), so encoding under the lock adds no ordering of its own; the lock keeps the block's
 * HEADERS and CONTINUATION frames contiguous, as for any block.
 */
final class FrameWriter {
    /** A batch this large is written by the thread that filled it, without waiting for the promised write. */
    static final int MAX_BATCH = 64 * 1024;

    private final OutputStream out;
    private final boolean batching;
    private final ReentrantLock lock = new ReentrantLock();
    // guarded by lock; the buffer is given back after each write so an idle connection holds none
    private byte[] buf;
    private int count;
    private boolean writePromised;
    /** Guarded by lock: what a response's header block is encoded through into {@link #buf}; holds it only then. */
    private final HeaderBlock inBatch = new HeaderBlock(0);
    private volatile boolean failed;
    /** Whether {@link #writeBegunNanos} is kept (an upstream connection's writer: its socket has no write deadline). */
    private final boolean timed;
    /** When the socket write in progress began (System.nanoTime), 0 between writes; kept only when {@link #timed}. */
    private volatile long writeBegunNanos;

    /** A writer whose every call writes and flushes before it returns. */
    FrameWriter(OutputStream out) {
        this(out, false, false);
    }

    FrameWriter(OutputStream out, boolean batching) {
        this(out, batching, false);
    }

    /** @param timed keep when the socket write in progress began ({@link #writeBegunNanos()}) */
    FrameWriter(OutputStream out, boolean batching, boolean timed) {
        this.out = out;
        this.batching = batching;
        this.timed = timed;
    }

    /**
     * When the socket write in progress began (System.nanoTime), 0 when none is: a write that stays in progress is one
     * the peer does not take (it stopped reading, and the kernel's buffers are full). Always 0 unless {@code timed}.
     */
    long writeBegunNanos() {
        return writeBegunNanos;
    }

    boolean failed() {
        return failed;
    }

    void settings(int[] idsAndValues) throws IOException {
        byte[] p = new byte[idsAndValues.length * 3];
        for (int i = 0, k = 0; i < idsAndValues.length; i += 2, k += 6) {
            p[k] = (byte) (idsAndValues[i] >>> 8);
            p[k + 1] = (byte) idsAndValues[i];
            putInt(p, k + 2, idsAndValues[i + 1]);
        }
        frame(Frames.SETTINGS, 0, 0, p, 0, p.length);
    }

    /** The client connection preface (RFC 9113 §3.4), before the client's SETTINGS. */
    void preface() throws IOException {
        boolean promised;
        lock.lock();
        try {
            checkNotFailed();
            reserve(Frames.PREFACE.length);
            System.arraycopy(Frames.PREFACE, 0, buf, count, Frames.PREFACE.length);
            count += Frames.PREFACE.length;
            promised = afterAppend();
        } finally {
            lock.unlock();
        }
        if (promised) {
            writePromisedBatch();
        }
    }

    /** What the peer's SETTINGS change, applied by {@link #applyAndAcknowledge}; takes no I/O and no writer lock. */
    @FunctionalInterface
    interface SettingsChange {
        void apply() throws Http2Exception;
    }

    /**
     * Applies the peer's SETTINGS and queues their ACK in one step under this writer's lock, so no frame that the new
     * settings let through (a DATA frame a raised SETTINGS_INITIAL_WINDOW_SIZE unblocked on another stream's thread)
     * is written before the ACK: a peer may read up to the ACK and take what came before it as sent under the old
     * settings (h2spec 6.9.2/1 does exactly that, and dropped the DATA frame it then waited for). If the change
     * throws, nothing is queued and the exception is the connection's error.
     */
    void applyAndAcknowledge(SettingsChange change) throws IOException, Http2Exception {
        boolean promised;
        lock.lock();
        try {
            checkNotFailed();
            change.apply();
            append(Frames.SETTINGS, Frames.FLAG_ACK, 0, null, 0, 0);
            promised = afterAppend();
        } finally {
            lock.unlock();
        }
        if (promised) {
            writePromisedBatch();
        }
    }

    void pingAck(byte[] payload) throws IOException {
        frame(Frames.PING, Frames.FLAG_ACK, 0, payload, 0, 8);
    }

    /** A PING the peer must acknowledge (the upstream keep-alive's probe). */
    void ping(byte[] payload) throws IOException {
        frame(Frames.PING, 0, 0, payload, 0, 8);
    }

    void goAway(int lastStreamId, int code, String debug) throws IOException {
        byte[] d = debug == null ? new byte[0] : debug.getBytes(StandardCharsets.UTF_8);
        byte[] p = new byte[8 + Math.min(d.length, 256)];
        putInt(p, 0, lastStreamId);
        putInt(p, 4, code);
        System.arraycopy(d, 0, p, 8, p.length - 8);
        frame(Frames.GOAWAY, 0, 0, p, 0, p.length);
    }

    void rstStream(int streamId, int code) throws IOException {
        fourByteFrame(Frames.RST_STREAM, streamId, code);
    }

    void windowUpdate(int streamId, int increment) throws IOException {
        fourByteFrame(Frames.WINDOW_UPDATE, streamId, increment);
    }

    /** A frame whose payload is one 32-bit value (RST_STREAM's error code, WINDOW_UPDATE's increment), batched. */
    private void fourByteFrame(int type, int streamId, int value) throws IOException {
        lock.lock();
        boolean promised;
        try {
            checkNotFailed();
            reserve(Frames.HEADER_LENGTH + 4);
            header(buf, count, 4, type, 0, streamId);
            putInt(buf, count + Frames.HEADER_LENGTH, value);
            count += Frames.HEADER_LENGTH + 4;
            promised = afterAppend();
        } finally {
            lock.unlock();
        }
        if (promised) {
            writePromisedBatch();
        }
    }

    void data(int streamId, byte[] b, int off, int len, boolean endStream) throws IOException {
        frame(Frames.DATA, endStream ? Frames.FLAG_END_STREAM : 0, streamId, b, off, len);
    }

    /**
     * One header block already encoded: a HEADERS frame and as many CONTINUATION frames as {@code maxFrameSize}
     * needs. The gateway's own blocks are encoded in place ({@link #responseHeaders}, {@link #requestHeaders}); this
     * writes a block a test made.
     */
    void headers(int streamId, byte[] block, int maxFrameSize, boolean endStream) throws IOException {
        headers(streamId, block, block.length, maxFrameSize, endStream);
    }

    /** One header block, {@code block[0, blockLength)}: a HEADERS frame and the CONTINUATION frames it needs. */
    void headers(int streamId, byte[] block, int blockLength, int maxFrameSize, boolean endStream)
            throws IOException {
        boolean promised;
        lock.lock();
        try {
            checkNotFailed();
            int first = Math.min(blockLength, maxFrameSize);
            int flags = (endStream ? Frames.FLAG_END_STREAM : 0)
                    | (first == blockLength ? Frames.FLAG_END_HEADERS : 0);
            append(Frames.HEADERS, flags, streamId, block, 0, first);
            int off = first;
            while (off < blockLength) {
                int n = Math.min(blockLength - off, maxFrameSize);
                append(Frames.CONTINUATION, off + n == blockLength ? Frames.FLAG_END_HEADERS : 0, streamId, block,
                        off, n);
                off += n;
            }
            promised = afterAppend();
        } finally {
            lock.unlock();
        }
        if (promised) {
            writePromisedBatch();
        }
    }

    /**
     * A response head ({@code status}) or its trailers ({@link ResponseBlock#TRAILERS}): its block encoded straight
     * into the batch, sent as a HEADERS frame and the CONTINUATION frames {@code maxFrameSize} needs.
     */
    void responseHeaders(int streamId, int status, Headers fields, int maxFrameSize, boolean endStream)
            throws IOException {
        boolean promised;
        lock.lock();
        try {
            checkNotFailed();
            appendResponseBlock(streamId, status, fields, maxFrameSize, endStream);
            promised = afterAppend();
        } finally {
            lock.unlock();
        }
        if (promised) {
            writePromisedBatch();
        }
    }

    /** {@link #responseHeaders} and the response's first DATA frame together: its head and first bytes, one write. */
    void responseHeadersAndData(int streamId, int status, Headers fields, int maxFrameSize, byte[] b, int off,
                                int len, boolean endStream) throws IOException {
        boolean promised;
        lock.lock();
        try {
            checkNotFailed();
            appendResponseBlock(streamId, status, fields, maxFrameSize, false);
            append(Frames.DATA, endStream ? Frames.FLAG_END_STREAM : 0, streamId, b, off, len);
            promised = afterAppend();
        } finally {
            lock.unlock();
        }
        if (promised) {
            writePromisedBatch();
        }
    }

    /**
     * A request head to an origin ({@link Http2ClientStream#encodeRequest}) or its trailers ({@code method} null:
     * {@link Http2ClientStream#encodeTrailers} of {@code fields}), encoded straight into the batch as a response's
     * block is, sent as a HEADERS frame and the CONTINUATION frames {@code maxFrameSize} needs.
     */
    void requestHeaders(int streamId, String method, String scheme, String authority, String path, Headers fields,
                        GeneratedField generated, int maxFrameSize, boolean endStream) throws IOException {
        boolean promised;
        lock.lock();
        try {
            checkNotFailed();
            int frame = openBlock(Http2ClientStream.estimate(fields));
            int end;
            try {
                if (method == null) {
                    Http2ClientStream.encodeTrailers(inBatch, fields);
                } else {
                    Http2ClientStream.encodeRequest(inBatch, method, scheme, authority, path, fields, generated);
                }
            } finally {
                end = closeBlock();
            }
            frameBlock(frame, end, streamId, maxFrameSize, endStream);
            promised = afterAppend();
        } finally {
            lock.unlock();
        }
        if (promised) {
            writePromisedBatch();
        }
    }

    /** Writes what is gathered now (before the output is half-closed or the socket closed). */
    void flush() throws IOException {
        lock.lock();
        try {
            if (count > 0) {
                checkNotFailed();
                writeOut();
            }
        } finally {
            lock.unlock();
        }
    }

    private static void header(byte[] f, int at, int len, int type, int flags, int streamId) {
        f[at] = (byte) (len >>> 16);
        f[at + 1] = (byte) (len >>> 8);
        f[at + 2] = (byte) len;
        f[at + 3] = (byte) type;
        f[at + 4] = (byte) flags;
        putInt(f, at + 5, streamId);
    }

    private void frame(int type, int flags, int streamId, byte[] payload, int off, int len) throws IOException {
        boolean promised;
        lock.lock();
        try {
            checkNotFailed();
            append(type, flags, streamId, payload, off, len);
            promised = afterAppend();
        } finally {
            lock.unlock();
        }
        if (promised) {
            writePromisedBatch();
        }
    }

    /** Under the lock: one frame into the buffer. */
    private void append(int type, int flags, int streamId, byte[] payload, int off, int len) {
        reserve(Frames.HEADER_LENGTH + len);
        header(buf, count, len, type, flags, streamId);
        if (len > 0) {
            System.arraycopy(payload, off, buf, count + Frames.HEADER_LENGTH, len);
        }
        count += Frames.HEADER_LENGTH + len;
    }

    /**
     * Under the lock: a response's header block encoded in place, after a HEADERS frame header left blank and filled
     * in once the block's length is known (see {@link #frameBlock}). If the encoding throws, the batch ends where it
     * did.
     */
    private void appendResponseBlock(int streamId, int status, Headers fields, int maxFrameSize, boolean endStream) {
        int frame = openBlock(ResponseBlock.estimate(fields));
        int end;
        try {
            ResponseBlock.encode(inBatch, status, fields);
        } finally {
            end = closeBlock();
        }
        frameBlock(frame, end, streamId, maxFrameSize, endStream);
    }

    /** Under the lock: room for a frame header and about {@code estimate} bytes of block; encoding goes in after it. */
    private int openBlock(int estimate) {
        reserve(Frames.HEADER_LENGTH + estimate);
        inBatch.continueIn(buf, count + Frames.HEADER_LENGTH);
        return count;
    }

    /** Under the lock: where the block ends; a block that outgrew the buffer leaves a larger copy, adopted here. */
    private int closeBlock() {
        int end = inBatch.length();
        byte[] grown = inBatch.array(); // the block outgrew the buffer: a larger copy of it
        inBatch.continueIn(null, 0);
        if (grown != buf) {
            BufferPool.give(buf);
            buf = grown;
        }
        return end;
    }

    /**
     * Under the lock: the block encoded at {@code [frame + header, end)} made a HEADERS frame and the CONTINUATION
     * frames {@code maxFrameSize} needs. A block longer than one frame has its rest moved apart to make room for each
     * CONTINUATION frame's header: from the last piece backwards, each piece moving further than the one before it,
     * so no piece is overwritten before it has moved.
     */
    private void frameBlock(int frame, int end, int streamId, int maxFrameSize, boolean endStream) {
        int start = frame + Frames.HEADER_LENGTH;
        int length = end - start;
        int continuations = length == 0 ? 0 : (length - 1) / maxFrameSize;
        if (continuations > 0) {
            reserve(end - frame + continuations * Frames.HEADER_LENGTH);
            for (int i = continuations; i > 0; i--) {
                int from = start + i * maxFrameSize;
                int n = Math.min(maxFrameSize, end - from);
                int at = frame + i * (Frames.HEADER_LENGTH + maxFrameSize);
                System.arraycopy(buf, from, buf, at + Frames.HEADER_LENGTH, n);
                header(buf, at, n, Frames.CONTINUATION, i == continuations ? Frames.FLAG_END_HEADERS : 0, streamId);
            }
        }
        int flags = (endStream ? Frames.FLAG_END_STREAM : 0) | (continuations == 0 ? Frames.FLAG_END_HEADERS : 0);
        header(buf, frame, Math.min(length, maxFrameSize), Frames.HEADERS, flags, streamId);
        count = end + continuations * Frames.HEADER_LENGTH;
    }

    private void reserve(int n) {
        if (buf == null) {
            buf = BufferPool.take(Math.max(BufferPool.SIZE, n));
        } else if (count + n > buf.length) {
            byte[] larger = java.util.Arrays.copyOf(buf, Math.max(2 * buf.length, count + n));
            BufferPool.give(buf);
            buf = larger;
        }
    }

    /** Under the lock: the batch is written (or abandoned); its buffer goes back to the pool. */
    private void release() {
        BufferPool.give(buf);
        buf = null;
        count = 0;
    }

    /**
     * Under the lock, after frames were added: writes now (no batching, or a full batch), or returns whether this
     * thread has just promised to write the batch (it was the first to add to it).
     */
    private boolean afterAppend() throws IOException {
        if (!batching || count >= MAX_BATCH) {
            writeOut();
            return false;
        }
        if (writePromised) {
            return false;
        }
        writePromised = true;
        return true;
    }

    /**
     * The server connection's frame reader: it writes the batch it promised without yielding first. While it yields
     * no frame is read, and a yield freezes its stack, deeper than where it waits for the next frame, into the stack
     * chunk that its virtual thread then keeps while the connection idles (measured: about 150 bytes more per idle
     * connection, bench/h2idle). Its frames (SETTINGS, acknowledgements, WINDOW_UPDATE, RST_STREAM) are few.
     */
    private Thread reader; // plain: only the reader's own comparison must see it, and it sees its own write

    /** The thread that reads the connection's frames; set by that thread before it writes (again after a park). */
    void readerIs(Thread t) {
        reader = t;
    }

    /** Keeps the promise: lets the other ready threads add their frames, then writes them all in one go. */
    private void writePromisedBatch() throws IOException {
        if (Thread.currentThread() != reader) {
            Thread.yield();
        }
        lock.lock();
        try {
            writePromised = false;
            if (count > 0) {
                checkNotFailed();
                writeOut();
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Interrupts a stream's handler thread (its client reset the stream; the interrupt ends whatever the thread waits
     * on upstream) while no thread is inside a socket write of this connection: under the lock that every write
     * holds. A virtual thread interrupted while blocked in a socket write closes that socket, which is every
     * stream's (seen as a Rapid Reset client getting end-of-stream instead of GOAWAY); an interrupt that is already
     * set when a write starts is held back by {@link #writeOut}.
     */
    void interruptBetweenWrites(Thread handler) {
        lock.lock();
        try {
            handler.interrupt();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Under the lock: writes and flushes the buffer. A stream's thread may carry an interrupt (its client reset the
     * stream); a virtual thread interrupted in a socket write closes the socket, which is every stream's, so the
     * interrupt is held back for the write and restored after it.
     */
    private void writeOut() throws IOException {
        if (count == 0) {
            return;
        }
        boolean interrupted = Thread.interrupted();
        if (timed) {
            writeBegunNanos = System.nanoTime();
        }
        try {
            out.write(buf, 0, count);
            out.flush();
        } catch (IOException e) {
            failed = true;
            throw e;
        } finally {
            if (timed) {
                writeBegunNanos = 0;
            }
            release();
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void checkNotFailed() throws IOException {
        if (failed) {
            release();
            throw new IOException("connection output failed earlier");
        }
    }

    static void putInt(byte[] b, int at, int v) {
        b[at] = (byte) (v >>> 24);
        b[at + 1] = (byte) (v >>> 16);
        b[at + 2] = (byte) (v >>> 8);
        b[at + 3] = (byte) v;
    }
}
