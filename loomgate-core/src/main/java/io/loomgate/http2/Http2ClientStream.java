package io.loomgate.http2;

import io.loomgate.http.Headers;
import io.loomgate.http.ResponseHead;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.concurrent.locks.Condition;

/**
 * One request to an origin on a multiplexed {@link Http2ClientConnection}: the request body goes out as DATA under
 * the origin's flow-control windows, the response comes back as heads (interim, then final), body and trailers.
 *
 * <p>Threads: the connection's reader delivers frames (the {@code *Locked} methods, under the connection's lock);
 * one request thread sends the body, another (or the same) reads the response. Every field marked guarded is touched
 * only under the connection's lock, which is never held across I/O. Every wait has a deadline: the head's is the
 * caller's, body reads and window waits use {@link #setTimeouts}.
 *
 * <p>Memory: response bytes buffered here never exceed the stream's receive window; it is reopened (WINDOW_UPDATE)
 * only as the response is read, so a slow client holds back its own stream, never the connection.
 *
 * <p>Ending: {@link #isComplete()} once both directions ended cleanly; {@link #cancel()} otherwise (RST_STREAM
 * CANCEL, unless the stream already ended or failed).
 */
public final class Http2ClientStream {
    private final Http2ClientConnection conn;
    private final int id;
    private final Condition changed;
    private final ResponseBody body = new ResponseBody();
    private final RequestBody requestBody = new RequestBody();
    private long readTimeoutNanos = Duration.ofSeconds(60).toNanos();
    private long writeTimeoutNanos = Duration.ofSeconds(60).toNanos();
    // guarded by conn.lock
    private final ArrayDeque<ResponseHead> heads = new ArrayDeque<>(2);
    private boolean finalHeadSeen;
    private boolean endedWithHead;
    private final ArrayDeque<byte[]> inbound = new ArrayDeque<>(4);
    private int inboundOffset;
    /** Response bytes received and not yet read. */
    private int buffered;
    private int recvWindow;
    private int recvUnacked;
    private boolean remoteClosed;
    private Headers trailers;
    int sendWindow;
    private boolean localClosed;
    private boolean requestStopped;
    private IOException failure;

    Http2ClientStream(Http2ClientConnection conn, int id, int sendWindow, int recvWindow, boolean endStream) {
        this.conn = conn;
        this.id = id;
        this.sendWindow = sendWindow;
        this.recvWindow = recvWindow;
        this.localClosed = endStream;
        this.changed = conn.lock.newCondition();
    }

    public int id() {
        return id;
    }

    /** The connection carrying this stream. */
    public Http2ClientConnection connection() {
        return conn;
    }

    /**
     * Bounds every later wait: {@code read} for each response body read (no byte within it fails the read),
     * {@code write} for the origin's flow-control window to open when sending the request body.
     */
    public void setTimeouts(Duration read, Duration write) {
        this.readTimeoutNanos = read.toNanos();
        this.writeTimeoutNanos = write.toNanos();
    }

    // ---------------------------------------------------------------- the response

    /**
     * The next response head, interim (1xx) or final, waiting until {@code deadlineNanos} (System.nanoTime).
     *
     * @throws SocketTimeoutException when none came in time
     * @throws Http2StreamException   when the origin reset or refused the stream
     */
    public ResponseHead awaitHead(long deadlineNanos) throws IOException {
        conn.lock.lock();
        try {
            while (heads.isEmpty()) {
                if (failure != null) {
                    throw copy(failure);
                }
                if (remoteClosed) {
                    throw new IOException("origin ended stream " + id + " without a response head");
                }
                await(deadlineNanos - System.nanoTime(), "no response head");
            }
            return heads.poll();
        } finally {
            conn.lock.unlock();
        }
    }

    /** Whether a response head is waiting to be taken. */
    public boolean hasHead() {
        conn.lock.lock();
        try {
            return !heads.isEmpty();
        } finally {
            conn.lock.unlock();
        }
    }

    /** Whether the final head ended the stream: the response has no body (and no trailers). */
    public boolean endedWithHead() {
        conn.lock.lock();
        try {
            return endedWithHead;
        } finally {
            conn.lock.unlock();
        }
    }

    /** The response body, ending at END_STREAM; its {@link ResponseBody#trailers()} once complete. */
    public ResponseBody body() {
        return body;
    }

    // ---------------------------------------------------------------- the request

    /** The request body: DATA frames as the windows allow. {@link #endRequest} ends it. */
    public OutputStream requestBody() {
        return requestBody;
    }

    /** Ends the request: trailers (HEADERS with END_STREAM) when there are any, else an empty DATA with END_STREAM. */
    public void endRequest(Headers requestTrailers) throws IOException {
        conn.lock.lock();
        try {
            if (requestStopped) {
                return;
            }
            checkWritable();
            localClosed = true;
        } finally {
            conn.lock.unlock();
        }
        if (requestTrailers != null && !requestTrailers.isEmpty()) {
            conn.writeTrailers(id, requestTrailers);
        } else {
            conn.writeData(id, EMPTY, 0, 0, true);
        }
        afterLocalEnd();
    }

    /** Whether the request was sent whole (END_STREAM), or the origin said it wants no more of it. */
    public boolean requestEnded() {
        conn.lock.lock();
        try {
            return localClosed || requestStopped;
        } finally {
            conn.lock.unlock();
        }
    }

    /** Whether the origin said it needs no more of the request (RST_STREAM NO_ERROR after its answer). */
    public boolean requestStopped() {
        conn.lock.lock();
        try {
            return requestStopped;
        } finally {
            conn.lock.unlock();
        }
    }

    /** Whether both directions ended cleanly and the whole response was read. */
    public boolean isComplete() {
        conn.lock.lock();
        try {
            return failure == null && (localClosed || requestStopped) && remoteClosed && inbound.isEmpty();
        } finally {
            conn.lock.unlock();
        }
    }

    /**
     * Gives up on the stream: RST_STREAM CANCEL unless it already ended or failed, so the origin stops working on
     * it; every wait on it fails. Idempotent; never throws.
     */
    public void cancel() {
        boolean send;
        conn.lock.lock();
        try {
            send = failure == null && !((localClosed || requestStopped) && remoteClosed);
            if (failure == null) {
                failure = new Http2StreamException("stream " + id + " cancelled", Frames.CANCEL, false);
            }
            conn.removeLocked(this);
            changed.signalAll();
            conn.windowOpened.signalAll();
        } finally {
            conn.lock.unlock();
        }
        if (send) {
            try {
                conn.writeReset(id, Frames.CANCEL);
            } catch (IOException e) {
                // the connection is failing: the origin will drop the stream with it
            }
        }
        conn.afterRemoval();
    }

    private void afterLocalEnd() {
        boolean done;
        conn.lock.lock();
        try {
            done = closedBothLocked();
            if (done) {
                conn.removeLocked(this);
            }
        } finally {
            conn.lock.unlock();
        }
        if (done) {
            conn.afterRemoval();
        }
    }

    private void checkWritable() throws IOException {
        if (failure != null) {
            throw copy(failure);
        }
        if (localClosed) {
            throw new IOException("request on stream " + id + " already ended");
        }
    }

    // ---------------------------------------------------------------- from the reader, under conn.lock

    boolean finalHeadSeen() {
        conn.lock.lock();
        try {
            return finalHeadSeen;
        } finally {
            conn.lock.unlock();
        }
    }

    void deliverHeadLocked(ResponseHead head, boolean endStream) {
        heads.add(head);
        if (!head.isInformational()) {
            finalHeadSeen = true;
            if (endStream) {
                endedWithHead = true;
                remoteClosed = true;
            }
        }
        changed.signalAll();
    }

    void deliverDataLocked(byte[] payload, int off, int len, boolean endStream) throws Http2Exception {
        if (!finalHeadSeen || remoteClosed) {
            throw Http2Exception.stream(id, Frames.PROTOCOL_ERROR, "DATA before the response head or after its end");
        }
        if (payload.length > recvWindow) {
            throw Http2Exception.stream(id, Frames.FLOW_CONTROL_ERROR, "DATA beyond the stream window");
        }
        recvWindow -= payload.length;
        // Padding is never read: its window comes back at once (the reader sends it)
        recvWindow += endStream ? 0 : payload.length - len;
        if (len > 0) {
            inbound.add(off == 0 && len == payload.length ? payload
                    : java.util.Arrays.copyOfRange(payload, off, off + len));
            buffered += len;
            conn.bufferedLocked(buffered);
        }
        if (endStream) {
            remoteClosed = true;
        }
        changed.signalAll();
    }

    void deliverTrailersLocked(Headers t) {
        trailers = t;
        remoteClosed = true;
        changed.signalAll();
    }

    /** The origin answered and reset with NO_ERROR: the response stands, the request body is not wanted. */
    void stopRequestLocked() {
        requestStopped = true;
        if (!remoteClosed) {
            failure = new Http2StreamException("origin reset stream " + id + " (NO_ERROR) before its response ended",
                    Frames.NO_ERROR, false);
        }
        changed.signalAll();
    }

    void failLocked(IOException why) {
        if (failure == null) {
            failure = why;
        }
        changed.signalAll();
    }

    boolean closedBothLocked() {
        return (localClosed || requestStopped) && remoteClosed;
    }

    // ---------------------------------------------------------------- waiting

    /** Waits on {@link #changed} (lock held) for at most {@code nanos}; a timeout or an interrupt throws. */
    private void await(long nanos, String what) throws IOException {
        if (nanos <= 0) {
            throw new SocketTimeoutException("stream " + id + ": " + what + " in time");
        }
        try {
            changed.awaitNanos(nanos);
        } catch (InterruptedException e) {
            // Not re-asserted: the caller's next act is to reset this stream on a socket every stream shares, and an
            // interrupted virtual thread blocked in a socket write closes that socket (see writeUninterrupted).
            throw new InterruptedIOException("stream " + id + " interrupted");
        }
    }

    private static IOException copy(IOException e) {
        if (e instanceof Http2StreamException h) {
            return h.copy();
        }
        return new IOException(e.getMessage(), e);
    }

    private static final byte[] EMPTY = new byte[0];

    /** The response body as it arrives in DATA frames; reads wait at most the read timeout each. */
    public final class ResponseBody extends InputStream {
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
            int n;
            int credit = 0;
            conn.lock.lock();
            try {
                long deadline = System.nanoTime() + readTimeoutNanos;
                while (inbound.isEmpty()) {
                    if (failure != null) {
                        throw copy(failure);
                    }
                    if (remoteClosed) {
                        return -1;
                    }
                    await(deadline - System.nanoTime(), "no response body data");
                }
                byte[] chunk = inbound.peek();
                n = Math.min(len, chunk.length - inboundOffset);
                System.arraycopy(chunk, inboundOffset, b, off, n);
                inboundOffset += n;
                buffered -= n;
                if (inboundOffset == chunk.length) {
                    inbound.poll();
                    inboundOffset = 0;
                }
                recvUnacked += n;
                if (!remoteClosed && recvUnacked >= Http2ClientConnection.STREAM_WINDOW / 2) {
                    credit = recvUnacked;
                    recvUnacked = 0;
                    recvWindow += credit;
                }
            } finally {
                conn.lock.unlock();
            }
            if (credit > 0) {
                // The origin may send this much more: the bytes were handed on.
                conn.writeWindowUpdate(id, credit);
            }
            return n;
        }

        /**
         * Waits until a byte can be read or the body ended (or failed), holding no buffer; false once complete.
         * Waits at most the read timeout; a read then reports what happened.
         */
        public boolean awaitData() throws IOException {
            conn.lock.lock();
            try {
                long deadline = System.nanoTime() + readTimeoutNanos;
                while (inbound.isEmpty() && failure == null && !remoteClosed) {
                    await(deadline - System.nanoTime(), "no response body data");
                }
                return !(inbound.isEmpty() && remoteClosed && failure == null);
            } finally {
                conn.lock.unlock();
            }
        }

        @Override
        public int available() {
            conn.lock.lock();
            try {
                return inbound.isEmpty() ? 0 : inbound.peek().length - inboundOffset;
            } finally {
                conn.lock.unlock();
            }
        }

        /** Whether the whole response body (and its trailers) arrived and was read. */
        public boolean isComplete() {
            conn.lock.lock();
            try {
                return remoteClosed && inbound.isEmpty() && failure == null;
            } finally {
                conn.lock.unlock();
            }
        }

        /** The response's trailers (HEADERS after the body, with END_STREAM); empty when it had none. */
        public Headers trailers() {
            conn.lock.lock();
            try {
                return trailers == null ? new Headers(2) : trailers;
            } finally {
                conn.lock.unlock();
            }
        }
    }

    /** The request body: each write goes out as DATA at once, split as the windows and frame size require. */
    private final class RequestBody extends OutputStream {
        @Override
        public void write(int b) throws IOException {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            while (len > 0) {
                int n;
                conn.lock.lock();
                try {
                    long deadline = System.nanoTime() + writeTimeoutNanos;
                    while (true) {
                        if (requestStopped) {
                            return; // the origin answered and wants no more: the rest is dropped
                        }
                        checkWritable();
                        if (sendWindow > 0 && conn.connSendWindow > 0) {
                            break;
                        }
                        long left = deadline - System.nanoTime();
                        if (left <= 0) {
                            throw new SocketTimeoutException("stream " + id + ": origin kept its flow-control window "
                                    + "shut for the write timeout");
                        }
                        try {
                            conn.windowOpened.awaitNanos(left);
                        } catch (InterruptedException e) {
                            throw new InterruptedIOException("stream " + id + " interrupted"); // see await()
                        }
                    }
                    n = Math.min(len, Math.min(Frames.DEFAULT_MAX_FRAME_SIZE, Math.min(sendWindow,
                            conn.connSendWindow)));
                    sendWindow -= n;
                    conn.connSendWindow -= n;
                } finally {
                    conn.lock.unlock();
                }
                conn.writeData(id, b, off, n, false);
                off += n;
                len -= n;
            }
        }
    }

    @Override
    public String toString() {
        return "stream " + id + " on " + conn;
    }
}
