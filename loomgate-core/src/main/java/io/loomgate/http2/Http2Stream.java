package io.loomgate.http2;

import io.loomgate.http.ClientCancel;
import io.loomgate.http.Headers;
import io.loomgate.http.RequestHead;
import io.loomgate.http.ResponseHead;
import io.loomgate.threads.BulkOutputStream;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.concurrent.locks.Condition;

/**
 * One HTTP/2 stream as its handler sees it: the request head, the request body as it arrives in DATA frames, and the
 * means to answer with HEADERS, DATA and trailers under flow control.
 *
 * <p>Threads: the connection's reader delivers frames; the stream's own thread reads the body and writes the
 * response. Every field below marked "guarded" is read and written only under the connection's lock, which is never
 * held across I/O; frames are written outside it (through the connection's {@link FrameWriter}).
 *
 * <p>Memory: the request body ({@link InboundBody}, as a client stream's response body) buffers at most the window
 * this side granted the stream; the window is reopened (WINDOW_UPDATE) only as the handler reads, so a handler that
 * does not read stops its client, not the connection.
 */
public final class Http2Stream {
    /** The most request body still to come that a complete early response waits for rather than resets. */
    static final int EARLY_ANSWER_DRAIN = 64 * 1024;
    /**
     * How long each read of that rest may wait for a byte. How long it may take in all is the listener's
     * {@code linger-timeout} (10 s by default; the read timeout if shorter), as HTTP/1.1's lingering close.
     */
    static final Duration EARLY_ANSWER_READ_WAIT = Duration.ofSeconds(5);
    /** The most of that rest read and thrown away; beyond it RST_STREAM NO_ERROR. */
    static final long EARLY_ANSWER_BUDGET = 16L << 20;
    private final Http2Connection conn;
    private final int id;
    private final int index;
    private final RequestHead request;
    private final long contentLength;
    /** What the request body's reader waits on; made with the body (see {@link #body}), under conn.lock after. */
    private Condition changed;
    /**
     * The request body; for a request whose HEADERS frame ended the stream (a GET: nearly every stream) made only
     * when asked for (a handler reading it, a reset counting its window), since it would otherwise be held for the
     * whole exchange (88 bytes, and its reader's condition 24, copied by every young collection while the stream
     * waits for its origin).
     * Volatile: the stream's thread asks without the lock; made under conn.lock.
     */
    private volatile RequestBody body;
    // guarded by conn.lock
    SendWindow.Stream sendWindow;
    boolean localClosed;
    // volatile, besides written under conn.lock: onClientCancel reads it without the lock
    private volatile String resetWhy;
    Thread thread;
    /** Set by {@link #deferRest}: the rest of the request is taken after the handler returns. Stream's thread only. */
    private boolean restPending;
    /** The reader throws the rest of the request away ({@link #startDiscardLocked}); guarded by conn.lock. */
    private boolean discarding;
    /** Of that rest: bytes still to throw away before the reset, and the total and per-DATA deadlines (nanoTime). */
    private long discardLeft;
    private long discardEnd;
    private long discardIdleEnd;
    /**
     * What ends the handler's work when the client cancels; null: the handler's thread is interrupted instead.
     * Written without the lock (see {@link #onClientCancel}), read by the reader under it.
     */
    volatile ClientCancel onCancel;
    // stream thread only
    private boolean responseStarted;
    /**
     * Response body bytes handed to the connection's writer as DATA: what the client can have, where the bytes the
     * handler wrote may still sit in {@link ResponseOut}'s buffer or wait, part sent, for window.
     */
    private long dataSent;
    /** The response head, not yet written (see {@link #sendHead}); encoded as it leaves. */
    ResponseHead pendingHead;
    /** What the send window asks while this stream's DATA waits for it; made at its first DATA. */
    private SendWindow.Sender sender;
    private final boolean headRequest;
    private final boolean bodyless;

    Http2Stream(Http2Connection conn, int id, int index, RequestHead request, long contentLength, boolean endStream,
                int recvWindow) {
        this.conn = conn;
        this.id = id;
        this.index = index;
        this.request = request;
        this.contentLength = contentLength;
        if (!endStream) {
            this.changed = conn.lock.newCondition();
            this.body = new RequestBody(recvWindow, false);
        }
        this.headRequest = "HEAD".equals(request.method());
        this.bodyless = endStream || contentLength == 0;
    }

    public int id() {
        return id;
    }

    /** The position of this stream on its connection, from 0. */
    public int index() {
        return index;
    }

    public RequestHead request() {
        return request;
    }

    /** Whether the request has a body: its HEADERS frame did not end the stream. */
    public boolean hasBody() {
        return !bodyless;
    }

    /** The request's content-length, or -1 when it sent none. */
    public long contentLength() {
        return contentLength;
    }

    public RequestBody body() {
        RequestBody b = body;
        return b != null ? b : endedBody();
    }

    /** Whether the request body object exists yet (a test's view of the laziness above). */
    boolean bodyMade() {
        return body != null;
    }

    private RequestBody endedBody() {
        conn.lock.lock();
        try {
            RequestBody b = body;
            if (b == null) {
                changed = conn.lock.newCondition();
                // the connection's window for a new stream, as ServerFrames gives the eager body (no field kept)
                body = b = new RequestBody(conn.initialWindowSize(), true);
            }
            return b;
        } finally {
            conn.lock.unlock();
        }
    }

    public boolean isResponseStarted() {
        return responseStarted;
    }

    /**
     * Takes back a response head that was not written yet (held for the body's first flush, see {@link #sendHead}):
     * no frame of the response has gone out, so a failure found that early (an origin's body broken before its first
     * byte) can be answered with a status of its own, as HTTP/1.1 takes its head back from the write buffer
     * (Http1ServerExchange.retractResponse). False once the head was written. Stream's thread only; the
     * {@link ResponseOut} handed out for the head taken back must not be used again.
     */
    public boolean retractResponse() {
        if (pendingHead == null) {
            return false;
        }
        pendingHead = null;
        responseStarted = false;
        return true;
    }

    /** Sends a 1xx head. */
    public void sendInterim(ResponseHead head) throws IOException {
        if (responseStarted) {
            throw new IllegalStateException("interim response after the final head");
        }
        writeHeaders(head.status(), head.headers(), false);
    }

    /**
     * Sends the response head; with {@code endStream} the response is complete. Otherwise write the body to the
     * returned stream and {@link ResponseOut#finish finish} it. The head's fields are encoded when the head leaves,
     * which may be at the body's first flush: they must not change after this call.
     */
    public ResponseOut sendHead(ResponseHead head, boolean endStream) throws IOException {
        return sendHead(head, endStream, -1);
    }

    /**
     * As {@link #sendHead(ResponseHead, boolean)}, for a body of {@code bodyLength} bytes (-1: unknown): a short
     * body is gathered in a buffer of its own size, not one of a kilobyte.
     */
    public ResponseOut sendHead(ResponseHead head, boolean endStream, long bodyLength) throws IOException {
        if (responseStarted) {
            throw new IllegalStateException("response head already sent");
        }
        responseStarted = true;
        if (endStream) {
            writeHeaders(head.status(), head.headers(), true);
        } else {
            // Held until the body's first flush (the seam allows it): HEADERS and the first DATA leave in one write.
            pendingHead = head;
        }
        return new ResponseOut(endStream, bodyLength);
    }

    /**
     * Registers what ends the handler's work when the client resets this stream or its connection ends: it runs on
     * the connection's frame reader and must not block (an upstream attempt's abort). Without one, the handler's
     * thread is interrupted, which is only safe while it is not writing to a socket other streams share. Runs at once
     * if the stream is already reset. Must be idempotent: a reset racing the registration may run it twice.
     */
    public void onClientCancel(ClientCancel action) {
        // Without the connection's lock: every exchange registers one, and that lock is the one all of a
        // connection's streams and its reader take, where each contended unlock hands off to a parked thread (W8:
        // this lock's hand-offs were ~0.8% of the CPU). Both fields are volatile, so either the reader's reset sees
        // the action, or this sees the reset, or both: the action may then run twice, so it must be idempotent (the
        // proxy's aborts its upstream attempt once, by compare-and-set).
        onCancel = action;
        if (resetWhy != null) {
            action.clientCancelled();
        }
    }

    /** Ends the stream abnormally (RST_STREAM) unless it already ended. */
    public void reset(int code) {
        conn.resetLocally(this, code, "reset by the server");
    }

    /** Cancels the stream (RST_STREAM CANCEL): the handler gave up on it. */
    public void cancel() {
        reset(Frames.CANCEL);
    }

    /** Resets the stream with INTERNAL_ERROR: the response cannot be completed. */
    public void abort() {
        reset(Frames.INTERNAL_ERROR);
    }

    // ---- writing the response, on the stream's thread (the lock is never held across a write)

    /** A head ({@code status}) or trailers ({@link ResponseBlock#TRAILERS}), encoded by the writer into its batch. */
    void writeHeaders(int status, Headers fields, boolean endStream) throws IOException {
        flushPendingHead();
        conn.lock.lock();
        try {
            checkWritable();
            if (endStream) {
                localClosed = true;
            }
        } finally {
            conn.lock.unlock();
        }
        conn.writer.responseHeaders(id, status, fields, conn.peer.maxFrameSize(), endStream);
        if (endStream) {
            conn.afterLocalEnd(this);
        }
    }

    /** Writes a response head held back by {@link #sendHead}, alone. */
    private void flushPendingHead() throws IOException {
        ResponseHead head = pendingHead;
        if (head != null) {
            pendingHead = null;
            writeHeaders(head.status(), head.headers(), false);
        }
    }

    /** Sends DATA as the stream and connection windows allow, waiting (up to the read timeout) for window. */
    void writeData(byte[] b, int off, int len, boolean endStream) throws IOException {
        if (pendingHead != null) {
            boolean together;
            conn.lock.lock();
            try {
                // Together only when the first DATA can go at once: a shut window must not hold the head back. (A
                // head longer than a frame goes along too: the writer adds its CONTINUATION frames before the DATA.)
                together = len == 0 || conn.sendWindow.isOpen(sendWindow);
            } finally {
                conn.lock.unlock();
            }
            if (!together) {
                flushPendingHead();
            }
        }
        do {
            int n;
            try {
                n = takeWindow(len, endStream);
            } catch (SocketTimeoutException e) {
                // Zero-window stall: the client keeps the window shut; the stream cannot finish.
                conn.resetLocally(this, Frames.CANCEL, "flow-control window stayed 0");
                throw e;
            } catch (InterruptedIOException e) {
                Thread.currentThread().interrupt();
                throw e;
            }
            boolean last = endStream && n == len;
            ResponseHead pending = pendingHead;
            if (pending != null) {
                pendingHead = null;
                conn.writer.responseHeadersAndData(id, pending.status(), pending.headers(), conn.peer.maxFrameSize(),
                        b, off, n, last);
            } else {
                conn.writer.data(id, b, off, n, last);
            }
            dataSent += n;
            off += n;
            len -= n;
            if (last) {
                conn.afterLocalEnd(this);
                return;
            }
        } while (len > 0);
    }

    /** The next DATA frame's share of the windows, waiting for them up to the read timeout. */
    private int takeWindow(int len, boolean endStream) throws IOException {
        if (sender == null) {
            sender = new Sending();
        }
        conn.lock.lock();
        try {
            int n = conn.sendWindow.take(sendWindow, id, "client", len, conn.peer.maxFrameSize(),
                    System.nanoTime() + conn.readTimeoutNanos(), sender);
            conn.dataFramesSent++; // one DATA frame per take: what the client's WINDOW_UPDATEs are measured against
            if (endStream && n == len) {
                localClosed = true;
            }
            return n;
        } finally {
            conn.lock.unlock();
        }
    }

    /** Under the lock. */
    private void checkWritable() throws IOException {
        if (resetWhy != null) {
            throw new IOException("stream " + id + ": " + resetWhy);
        }
        if (localClosed) {
            throw new IOException("stream " + id + " already ended");
        }
        if (conn.endedLocked()) {
            throw new IOException("connection closed");
        }
    }

    /** The response's DATA waiting for window: it may still be sent, and its held-back head may go first. */
    private final class Sending implements SendWindow.Sender {
        @Override
        public boolean maySend() throws IOException {
            checkWritable();
            return true;
        }

        @Override
        public boolean beforeWait() throws IOException {
            if (pendingHead == null) {
                return false;
            }
            // Another stream took the connection window meanwhile: the head goes out alone first.
            conn.lock.unlock();
            try {
                flushPendingHead();
            } finally {
                conn.lock.lock();
            }
            return true;
        }
    }

    // ---- called by the connection's reader, under conn.lock ----

    /**
     * Buffers request body bytes; returns the padding's window credit to give back at once. Beyond the stream's
     * window, or beside its content-length, is a stream error.
     */
    int deliverData(byte[] payload, int off, int len, boolean endStream) throws Http2Exception {
        // Checked before the bytes are buffered: once buffered (and the handler signalled), a handler could read a
        // body the frame makes malformed and forward it before the reset lands (HostileProbeTest saw a 200 for
        // content-length 2 with 6 bytes of DATA once, at load 15 with debug logging slowing the reader).
        long received = body().receivedLocked() + len;
        if (contentLength >= 0 && (endStream ? received != contentLength : received > contentLength)) {
            throw Http2Exception.stream(id, Frames.PROTOCOL_ERROR,
                    "DATA does not match content-length (RFC 9113 §8.1.1)");
        }
        return body().receive(payload, off, len, endStream);
    }

    void deliverTrailers(Headers t) {
        body().end(t);
    }

    /** Under conn.lock: what the request body's window grew by, to give back as the stream leaves (none: 0). */
    int grownLocked() {
        RequestBody b = body;
        return b == null ? 0 : b.grownLocked();
    }

    /** Under conn.lock: whether the client ended its side (END_STREAM). */
    boolean remoteClosed() {
        RequestBody b = body;
        return b == null || b.endedLocked(); // none made: the HEADERS frame ended the stream
    }

    /**
     * The response is complete while the request body is still coming (an early answer: a 413, a 401, an origin that
     * answered first): the rest is discarded by the connection's reader once its handler has returned
     * ({@link #startDiscardLocked}), and the stream stays open until then; true when that is so. Never on the reader's
     * thread, which delivers the DATA waited for; never while the handler runs, since another thread of its (a
     * full-duplex relay) may still be reading the body, and bytes taken from under it would leave a hole in what the
     * origin gets.
     */
    boolean deferRest() {
        if (restPending) {
            return false; // taken already: the reset (if still needed) goes on
        }
        if (bodyless) {
            // No body was ever coming (a GET, most often): decided without the connection's lock, which every stream
            // of the connection and its reader contend for, once per response.
            return false;
        }
        conn.lock.lock();
        try {
            if (Thread.currentThread() != thread || remoteClosed() || isReset() || conn.streamLocked(id) != this) {
                return false;
            }
        } finally {
            conn.lock.unlock();
        }
        restPending = true;
        return true;
    }

    /** Whether {@link #deferRest} left the rest of the request to take after the handler. Stream's thread only. */
    boolean restPending() {
        return restPending;
    }

    /**
     * Under conn.lock, once the handler of a stream answered early returned: from now on the connection's reader
     * throws the rest of the request away as it arrives ({@link #discardDataLocked}), the window reopening as for a
     * handler that reads, until the client ends the stream, for at most {@link #EARLY_ANSWER_READ_WAIT} between DATA
     * frames, the listener's {@code linger-timeout} in all (the read timeout if shorter) and
     * {@link #EARLY_ANSWER_BUDGET} bytes; past a bound the connection sends RST_STREAM NO_ERROR (RFC 9113 §8.1 allows
     * either). A rest its content-length says is at most {@link #EARLY_ANSWER_DRAIN} gets its whole window at once.
     * What is buffered now is thrown away here. Returns the window credit to send. Why not reset at once: curl 7.88
     * (Debian 12's) discards a complete response whose stream is reset while it still uploads (exit 92, no status):
     * this is HTTP/2's lingering close, with HTTP/1.1's bounds (the server's LingeringClose). Why the reader and not
     * the stream's own thread (as until session 43): that thread and its handler's stack would wait up to the bound
     * for nothing.
     */
    int startDiscardLocked(long now) {
        discarding = true;
        discardLeft = EARLY_ANSWER_BUDGET - body().bufferedLocked();
        discardEnd = now + Math.min(conn.readTimeoutNanos(), conn.lingerTimeoutNanos());
        discardIdleEnd = now + EARLY_ANSWER_READ_WAIT.toNanos();
        int credit = body().discardLocked();
        long rest = unreceived();
        if (rest >= 0 && rest <= EARLY_ANSWER_DRAIN) {
            credit += body().allowLocked(rest);
        }
        return credit;
    }

    /** Under conn.lock: whether the reader throws this stream's DATA away (see {@link #startDiscardLocked}). */
    boolean discardingLocked() {
        return discarding;
    }

    /** Under conn.lock: stops discarding (the stream leaves); whether it was. */
    boolean stopDiscardingLocked() {
        boolean was = discarding;
        discarding = false;
        return was;
    }

    /**
     * Under conn.lock, on the reader, after {@link #deliverData} of {@code len} body bytes on a stream whose rest is
     * discarded: throws them away; returns the window credit to send.
     */
    int discardDataLocked(int len, long now) {
        discardLeft -= len;
        discardIdleEnd = now + EARLY_ANSWER_READ_WAIT.toNanos();
        return body().discardLocked();
    }

    /** Under conn.lock: when the discarding must end unless more DATA comes (the earlier of its two deadlines). */
    long discardDueLocked() {
        return discardEnd - discardIdleEnd < 0 ? discardEnd : discardIdleEnd;
    }

    /** Under conn.lock: whether a bound of the discarding has passed at {@code now}: the stream is to be reset. */
    boolean discardOverLocked(long now) {
        return discardLeft <= 0 || now - discardDueLocked() >= 0;
    }

    /** Under conn.lock: request body bytes its content-length says are still to come, or -1 without one. */
    long unreceived() {
        RequestBody b = body;
        return contentLength < 0 ? -1 : contentLength - (b == null ? 0 : b.receivedLocked());
    }

    /** The stream ended abnormally (either side reset it, or the connection ended): wake everyone waiting. */
    void markReset(String why) {
        if (resetWhy == null) {
            resetWhy = why;
            body().failLocked(new IOException("stream " + id + ": " + why));
        }
        changed.signalAll(); // made with the body just above at the latest
    }

    /**
     * The handler gives the request body up (its upload was stopped: the retries after a refusal spent, session 60):
     * a read waiting for the client's DATA fails now, not at the read timeout; the stream stays open for its answer.
     */
    public void abandonBody() {
        conn.lock.lock();
        try {
            body().abandonLocked();
        } finally {
            conn.lock.unlock();
        }
    }

    /** Whether the stream ended abnormally: either side reset it, or the connection ended. */
    public boolean isReset() {
        return resetWhy != null;
    }

    String resetWhy() {
        return resetWhy;
    }

    /** The request body: blocks for DATA with the connection's read timeout as its deadline. */
    public final class RequestBody extends InboundBody {
        RequestBody(int window, boolean ended) {
            super(conn.lock, changed, conn.writer, id, window, ended, conn.readTimeoutNanos(), "request body");
        }

        @Override
        int growthLocked(int current) {
            return conn.growWindow(current);
        }

        @Override
        InterruptedIOException interrupted() {
            // Kept asserted: the handler was interrupted because its client reset the stream, and is to stop.
            Thread.currentThread().interrupt();
            return super.interrupted();
        }
    }

    /** The response body: buffers up to one frame, then sends DATA as the windows allow. */
    public final class ResponseOut extends BulkOutputStream {
        private final long bodyLength;
        private byte[] buf;
        private int count;
        private long written;
        private boolean finished;

        ResponseOut(boolean ended, long bodyLength) {
            this.finished = ended;
            this.bodyLength = bodyLength;
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            if (finished) {
                throw new IOException("response already finished");
            }
            if (headRequest) {
                return; // a response to HEAD has no body, whatever the handler writes
            }
            int frame = conn.peer.maxFrameSize();
            while (len > 0) {
                // A whole frame goes out as it is, unless it is the end of a body of known length: that is buffered
                // and leaves with finish(), in the frame that ends the stream. Sent alone, its END_STREAM followed in
                // an empty DATA once the relay had read the origin's end, and a client that takes content-length
                // bytes as the whole answer (curl 7.88) could close in between: the frame failed and the exchange it
                // had whole was recorded client_aborted (clean-clone run 20; Http2StreamLifecycleTest).
                if (count == 0 && len >= frame && written + frame != bodyLength) {
                    writeData(b, off, frame, false);
                    written += frame;
                    off += frame;
                    len -= frame;
                    continue;
                }
                if (buf == null) {
                    int first = bodyLength > 0 && bodyLength < 1024 ? (int) bodyLength : 1024;
                    buf = new byte[Math.min(frame, Math.max(len, first))];
                } else if (buf.length < frame && count + len > buf.length) {
                    buf = java.util.Arrays.copyOf(buf, Math.min(frame, Math.max(buf.length * 2, count + len)));
                }
                int n = Math.min(len, buf.length - count);
                System.arraycopy(b, off, buf, count, n);
                count += n;
                written += n;
                off += n;
                len -= n;
                // A full buffer is sent, unless it holds the end of a body of known length: that leaves with finish()
                // in the DATA frame that ends the stream, not followed by an empty one.
                if (count == buf.length && written != bodyLength) {
                    flush();
                }
            }
        }

        @Override
        public void flush() throws IOException {
            if (count > 0) {
                writeData(buf, 0, count, false);
                count = 0;
            }
        }

        /** Sends what is buffered and ends the stream, with these trailers when not empty. */
        public void finish(Headers responseTrailers) throws IOException {
            if (finished) {
                return;
            }
            finished = true;
            if (responseTrailers != null && !responseTrailers.isEmpty() && !headRequest) {
                flush();
                writeHeaders(ResponseBlock.TRAILERS, responseTrailers, true);
            } else {
                writeData(buf == null ? new byte[0] : buf, 0, count, true);
                count = 0;
            }
            buf = null;
        }

        public boolean isFinished() {
            return finished;
        }

        /**
         * Body bytes sent as DATA so far: fewer than written while some wait in the buffer or for window (a client
         * that keeps its window shut gets the part of a write its window allowed, then the stream is reset).
         */
        public long sent() {
            return dataSent;
        }
    }
}
