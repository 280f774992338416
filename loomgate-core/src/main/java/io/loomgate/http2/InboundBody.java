package io.loomgate.http2;

import io.loomgate.http.Headers;
import io.loomgate.threads.BulkInputStream;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.SocketTimeoutException;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The body a stream receives, either role (a request body at the server, a response body at the client): DATA
 * payloads buffered as they arrive, read by the stream's thread, then the trailers. Also the stream's receive window:
 * what is buffered never exceeds the window this side granted; it is reopened (WINDOW_UPDATE) only as the body is
 * read, so a reader that does not read stops its own stream, not the connection.
 *
 * <p>Threads: the connection's reader delivers ({@link #receive}, {@link #end}), under the connection's lock; the
 * stream's thread reads. Every field is guarded by the connection's lock, never held across I/O.
 */
abstract class InboundBody extends BulkInputStream {
    private final ReentrantLock lock;
    private final Condition changed;
    private final FrameWriter writer;
    private final int id;
    private final String what;
    private volatile long readTimeoutNanos;
    // guarded by lock
    /** Why the stream ended abnormally (reset, failed, its connection gone); null while it is sound. */
    private IOException failure;
    /** DATA payloads not yet read; made at the first one (most requests have no body). */
    private ArrayDeque<byte[]> chunks;
    private int chunkOffset;
    private int buffered;
    private long received;
    private int recvWindow;
    private int recvUnacked;
    /** The window this side keeps open for the stream: the initial one, plus any {@link #growthLocked} gave. */
    private int windowSize;
    /** How much of {@link #windowSize} is growth beyond the initial window. */
    private int grown;
    private boolean ended;
    /** The reader gave the body up ({@link #abandonLocked}): reads fail, DATA is still taken within the window. */
    private boolean abandoned;
    private Headers trailers;

    /**
     * @param changed signalled whenever something arrives or the stream fails
     * @param writer  where the window is reopened (WINDOW_UPDATE) as the body is read
     * @param window  the receive window this side granted the stream (SETTINGS_INITIAL_WINDOW_SIZE)
     * @param what    names the body in a timeout's message
     */
    InboundBody(ReentrantLock lock, Condition changed, FrameWriter writer, int id, int window, boolean ended,
                long readTimeoutNanos, String what) {
        this.lock = lock;
        this.changed = changed;
        this.writer = writer;
        this.readTimeoutNanos = readTimeoutNanos;
        this.id = id;
        this.windowSize = window;
        this.recvWindow = window;
        this.ended = ended;
        this.what = what;
    }

    /** How long each later read may wait for a byte. */
    void readTimeout(long nanos) {
        readTimeoutNanos = nanos;
    }

    /** Under the lock: the stream ended abnormally; every wait fails with {@code why} (the first one given stays). */
    void failLocked(IOException why) {
        if (failure == null) {
            failure = why;
        }
        changed.signalAll();
    }

    /**
     * Under the lock: the body will not be read to its end (its upload was stopped, session 60): a read waiting for
     * DATA fails now instead of at the read timeout, and every later one at once. The stream is not ended: its answer
     * still goes out, and what the client still sends is buffered within the window, then discarded as an early
     * answer's rest once the handler returned.
     */
    void abandonLocked() {
        abandoned = true;
        changed.signalAll();
    }

    /** Under the lock: whether the stream ended abnormally. */
    boolean failedLocked() {
        return failure != null;
    }

    /** Under the lock, once {@link #failedLocked}: what to throw, a fresh exception for each thread that meets it. */
    IOException failureLocked() {
        if (failure instanceof Http2StreamException h) {
            return h.copy();
        }
        return new IOException(failure.getMessage(), failure);
    }

    /** The read was interrupted: what to throw (and whether the interrupt stays asserted is the role's choice). */
    InterruptedIOException interrupted() {
        return new InterruptedIOException("stream " + id + " interrupted");
    }

    // ---- from the connection's reader, under the lock

    /**
     * A DATA frame: {@code payload.length} counts against the window, {@code data[off, off+len)} is buffered. Returns
     * the credit to give back at once: the padding, which is never read (none once the stream ended).
     */
    int receive(byte[] payload, int off, int len, boolean endStream) throws Http2Exception {
        if (payload.length > recvWindow) {
            throw Http2Exception.stream(id, Frames.FLOW_CONTROL_ERROR, "DATA beyond the stream window");
        }
        recvWindow -= payload.length;
        int paddingCredit = endStream ? 0 : payload.length - len;
        recvWindow += paddingCredit;
        if (len > 0) {
            if (chunks == null) {
                chunks = new ArrayDeque<>(2);
            }
            chunks.add(off == 0 && len == payload.length ? payload : Arrays.copyOfRange(payload, off, off + len));
            buffered += len;
            received += len;
        }
        if (endStream) {
            ended = true;
        }
        changed.signalAll();
        return paddingCredit;
    }

    /** The peer ended the body, with trailers (null: none). */
    void end(Headers t) {
        if (t != null) {
            trailers = t;
        }
        ended = true;
        changed.signalAll();
    }

    /** Under the lock: whether the peer ended the body (END_STREAM). */
    boolean endedLocked() {
        return ended;
    }

    /** Under the lock: body bytes received in all. */
    long receivedLocked() {
        return received;
    }

    /** Under the lock: body bytes received and not yet read. */
    int bufferedLocked() {
        return buffered;
    }

    /**
     * Under the lock, when the reader keeps up (nothing buffered as the window reopens): how much larger the window of
     * {@code current} bytes may become now. 0 here: the window stays as granted (the client's response bodies); the
     * server's request body asks its connection.
     */
    int growthLocked(int current) {
        return 0;
    }

    /** Under the lock: the window granted beyond the initial one, to be given back when the stream leaves. */
    int grownLocked() {
        return grown;
    }

    /**
     * Under the lock: opens the window so that {@code rest} more body bytes may come at once; returns the credit to
     * send (WINDOW_UPDATE), 0 when the window already allows it.
     */
    int allowLocked(long rest) {
        int grant = (int) Math.max(0, Math.min(Integer.MAX_VALUE, rest - recvWindow));
        recvWindow += grant;
        return grant;
    }

    /**
     * Under the lock: {@code n} bytes were taken from the buffer; returns the window credit to send now (0 for none
     * yet): once half the window was taken the peer may send that much more. When everything that came was taken,
     * the window (not the reader) paces the peer: the role may grow it.
     */
    private int takenLocked(int n) {
        recvUnacked += n;
        if (ended || recvUnacked < windowSize / 2) {
            return 0;
        }
        int credit = recvUnacked;
        if (noneBuffered()) {
            int extra = growthLocked(windowSize);
            windowSize += extra;
            grown += extra;
            credit += extra;
        }
        recvUnacked = 0;
        recvWindow += credit;
        return credit;
    }

    /**
     * Under the lock: throws away every byte buffered ({@link #bufferedLocked} of them), as if read: the window
     * reopens the same way; returns the credit to send. For a stream whose rest nobody reads any more.
     */
    int discardLocked() {
        int n = buffered;
        if (chunks != null) {
            chunks.clear();
        }
        chunkOffset = 0;
        buffered = 0;
        return n == 0 ? 0 : takenLocked(n);
    }

    /** Under the lock: the DATA the peer may still send on the stream (its receive window now). */
    int recvWindowLocked() {
        return recvWindow;
    }

    /** Under the lock: whether nothing received is left unread. */
    boolean drainedLocked() {
        return noneBuffered();
    }

    private boolean noneBuffered() {
        return chunks == null || chunks.isEmpty();
    }

    /** Under the lock: waits on the stream's condition for at most {@code nanos}; a timeout or an interrupt throws. */
    void awaitLocked(long nanos, String why) throws IOException {
        if (nanos <= 0) {
            throw new SocketTimeoutException("stream " + id + ": " + why + " in time");
        }
        try {
            changed.awaitNanos(nanos);
        } catch (InterruptedException e) {
            throw interrupted();
        }
    }

    // ---- the stream's thread

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        if (len == 0) {
            return 0;
        }
        int n;
        int credit = 0;
        lock.lock();
        try {
            long deadline = System.nanoTime() + readTimeoutNanos;
            while (noneBuffered() || abandoned) {
                if (failedLocked()) {
                    throw failureLocked();
                }
                if (abandoned) {
                    throw new IOException("stream " + id + ": the " + what + " is no longer read (its upload stopped)");
                }
                if (ended) {
                    return -1;
                }
                awaitLocked(deadline - System.nanoTime(), "no " + what + " data");
            }
            // Every DATA payload buffered, up to len: a relay that is behind moves several frames per write to the
            // origin, not one 16 KiB frame per write (issue 34, U3).
            n = 0;
            while (n < len && !noneBuffered()) {
                byte[] chunk = chunks.peek();
                int part = Math.min(len - n, chunk.length - chunkOffset);
                System.arraycopy(chunk, chunkOffset, b, off + n, part);
                chunkOffset += part;
                n += part;
                if (chunkOffset == chunk.length) {
                    chunks.poll();
                    chunkOffset = 0;
                }
            }
            buffered -= n;
            credit = takenLocked(n);
        } finally {
            lock.unlock();
        }
        if (credit > 0) {
            writer.windowUpdate(id, credit);
        }
        return n;
    }

    /**
     * Waits until a byte can be read or the body ended (or failed), holding no buffer; false once complete. Waits at
     * most the read timeout; a read then reports what happened.
     */
    public boolean awaitData() throws IOException {
        lock.lock();
        try {
            long deadline = System.nanoTime() + readTimeoutNanos;
            while (noneBuffered() && !ended && !failedLocked() && !abandoned) {
                awaitLocked(deadline - System.nanoTime(), "no " + what + " data");
            }
            return abandoned || !(noneBuffered() && ended && !failedLocked()); // abandoned: the read says so
        } finally {
            lock.unlock();
        }
    }

    @Override
    public int available() {
        lock.lock();
        try {
            return buffered;
        } finally {
            lock.unlock();
        }
    }

    /** Whether the whole body (and its trailers) arrived and was read. */
    public boolean isComplete() {
        lock.lock();
        try {
            return ended && noneBuffered() && !failedLocked();
        } finally {
            lock.unlock();
        }
    }

    /** The trailers (HEADERS after the body, with END_STREAM); empty when there were none. */
    public Headers trailers() {
        lock.lock();
        try {
            return trailers == null ? new Headers(0) : trailers; // no arrays: most bodies have no trailers
        } finally {
            lock.unlock();
        }
    }
}
