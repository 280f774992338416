package io.loomgate.http2;

import io.loomgate.http.GeneratedField;
import io.loomgate.http.Headers;
import io.loomgate.http.ResponseHead;
import io.loomgate.threads.BulkOutputStream;
import java.io.IOException;
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
 * <p>Memory: the response body ({@link InboundBody}, as a server stream's request body) buffers at most the stream's
 * receive window; it is reopened (WINDOW_UPDATE) only as the response is read, so a slow client holds back its own
 * stream, never the connection. The request body waits for the origin's windows in the connection's
 * {@link SendWindow}.
 *
 * <p>Ending: {@link #isComplete()} once both directions ended cleanly; {@link #cancel()} otherwise (RST_STREAM
 * CANCEL, unless the stream already ended or failed).
 */
public final class Http2ClientStream {
    private final Http2ClientConnection conn;
    private final int id;
    private final Condition changed;
    private final ResponseBody body;
    private final RequestBody requestBody = new RequestBody();
    private static final long DEFAULT_TIMEOUT_NANOS = Duration.ofSeconds(60).toNanos();
    private long writeTimeoutNanos = DEFAULT_TIMEOUT_NANOS;
    // guarded by conn.lock
    private final ArrayDeque<ResponseHead> heads = new ArrayDeque<>(2);
    private boolean finalHeadSeen;
    private boolean endedWithHead;
    final SendWindow.Stream sendWindow;
    private boolean localClosed;
    private boolean requestStopped;

    Http2ClientStream(Http2ClientConnection conn, int id, SendWindow.Stream sendWindow, int recvWindow,
                      boolean endStream) {
        this.conn = conn;
        this.id = id;
        this.sendWindow = sendWindow;
        this.localClosed = endStream;
        this.changed = conn.lock.newCondition();
        this.body = new ResponseBody(recvWindow);
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
        body.readTimeout(read.toNanos());
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
                if (body.failedLocked()) {
                    throw body.failureLocked();
                }
                if (body.endedLocked()) {
                    throw new IOException("origin ended stream " + id + " without a response head");
                }
                body.awaitLocked(deadlineNanos - System.nanoTime(), "no response head");
            }
            return heads.poll();
        } catch (SocketTimeoutException e) {
            conn.lock.unlock();
            try {
                conn.headTimedOut(); // outside the lock: it may end the connection
            } finally {
                conn.lock.lock();
            }
            throw e;
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
        try {
            if (requestTrailers != null && !requestTrailers.isEmpty()) {
                conn.writeTrailers(id, requestTrailers);
            } else {
                conn.writeData(id, EMPTY, 0, 0, true);
            }
        } catch (IOException e) {
            throw conn.verdict.afterWriteFailed(id, e);
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
            return !body.failedLocked() && closedBothLocked() && body.drainedLocked();
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
            send = !body.failedLocked() && !closedBothLocked();
            body.failLocked(new Http2StreamException("stream " + id + " cancelled", Frames.CANCEL, false));
            conn.removeLocked(this);
            conn.sendWindow.wake();
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
        if (body.failedLocked()) {
            throw body.failureLocked();
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
                body.end(null);
            }
        }
        changed.signalAll();
    }

    /** A DATA frame of the response body; returns the padding's window credit to give back at once. */
    int deliverDataLocked(byte[] payload, int off, int len, boolean endStream) throws Http2Exception {
        if (!finalHeadSeen || body.endedLocked()) {
            throw Http2Exception.stream(id, Frames.PROTOCOL_ERROR, "DATA before the response head or after its end");
        }
        int credit = body.receive(payload, off, len, endStream);
        if (len > 0) {
            conn.bufferedLocked(body.bufferedLocked());
        }
        return credit;
    }

    void deliverTrailersLocked(Headers t) {
        body.end(t);
    }

    /** A whole header block: the response head (interim or final), or the trailers after the body. */
    void deliverBlockLocked(ResponseFields fields, boolean endStream) throws Http2Exception {
        if (finalHeadSeen) {
            if (!endStream) {
                throw Http2Exception.stream(id, Frames.PROTOCOL_ERROR, "trailers without END_STREAM");
            }
            deliverTrailersLocked(fields.toTrailers(id));
            return;
        }
        ResponseHead h = fields.toResponse(id);
        if (h.isInformational() && (endStream || h.status() == 101)) {
            throw Http2Exception.stream(id, Frames.PROTOCOL_ERROR, "informational " + h.status()
                    + " ending the stream or switching protocols");
        }
        deliverHeadLocked(h, endStream);
    }

    /** RST_STREAM from the origin. */
    void resetByOriginLocked(int code) {
        if (code == Frames.NO_ERROR && finalHeadSeen) {
            // RFC 9113 §8.1: the origin answered and does not need the rest of the request body.
            stopRequestLocked();
        } else {
            failLocked(new Http2StreamException("origin reset stream " + id + " with " + Frames.errorName(code),
                    code, code == Frames.REFUSED_STREAM));
        }
    }

    /** The origin answered and reset with NO_ERROR: the response stands, the request body is not wanted. */
    void stopRequestLocked() {
        requestStopped = true;
        if (!body.endedLocked()) {
            body.failLocked(new Http2StreamException("origin reset stream " + id
                    + " (NO_ERROR) before its response ended", Frames.NO_ERROR, false));
        }
        changed.signalAll();
    }

    void failLocked(IOException why) {
        body.failLocked(why);
    }

    boolean closedBothLocked() {
        return (localClosed || requestStopped) && body.endedLocked();
    }

    /**
     * A request head as HPACK: fields as given (lower-cased), after the pseudo-fields, except the connection-specific
     * ones and Host, which is {@code :authority} (RFC 9113 §8.2.2, §8.3.1).
     */
    static byte[] encodeRequest(String method, String scheme, String authority, String path, Headers fields,
                                GeneratedField generated) {
        HeaderBlock out = new HeaderBlock(estimate(fields));
        encodeRequest(out, method, scheme, authority, path, fields, generated);
        return out.toByteArray();
    }

    /** A room guess for a request's or trailers' block of {@code fields} fields (a short one is grown). */
    static int estimate(Headers fields) {
        return 64 + fields.size() * 32;
    }

    /**
     * Appends a request head's block to {@code out}: the frame writer's batch ({@link FrameWriter#requestHeaders}),
     * so the block is not built in an array of its own and copied in.
     */
    static void encodeRequest(HeaderBlock out, String method, String scheme, String authority, String path,
                              Headers fields, GeneratedField generated) {
        HpackEncoder.field(out, ":method", method);
        HpackEncoder.field(out, ":scheme", scheme);
        HpackEncoder.field(out, ":authority", authority);
        HpackEncoder.field(out, ":path", path);
        for (int i = 0; i < fields.size(); i++) {
            String n = LowerCaseNames.known(fields.name(i));
            if (n == null) {
                // not a name the table holds, so none of those dropped below: lower-cased as it is written
                HpackEncoder.fieldLowerCasing(out, fields.name(i), fields.value(i));
                continue;
            }
            switch (n) {
                case "host", "connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade", "te",
                     "http2-settings" -> {
                    // Host is :authority; the rest are connection-specific (RFC 9113 §8.2.2); TE is added below
                }
                default -> HpackEncoder.field(out, n, fields.value(i));
            }
        }
        if (generated != null) {
            HpackEncoder.field(out, generated);
        }
        // The gateway passes response trailers on (gRPC needs them), so it may say it accepts them.
        HpackEncoder.field(out, "te", "trailers");
    }

    /** Appends request trailers' block to {@code out}: regular fields only. */
    static void encodeTrailers(HeaderBlock out, Headers trailers) {
        for (int i = 0; i < trailers.size(); i++) {
            String name = trailers.name(i);
            if (name.isEmpty() || name.charAt(0) == ':') {
                continue;
            }
            String n = LowerCaseNames.known(name);
            if (n == null) {
                HpackEncoder.fieldLowerCasing(out, name, trailers.value(i));
            } else {
                HpackEncoder.field(out, n, trailers.value(i));
            }
        }
    }

    private static final byte[] EMPTY = new byte[0];

    /** The response body as it arrives in DATA frames; reads wait at most the read timeout each. */
    public final class ResponseBody extends InboundBody {
        ResponseBody(int window) {
            super(conn.lock, changed, conn.writer, id, window, false, DEFAULT_TIMEOUT_NANOS, "response body");
        }

        // An interrupt is not re-asserted: the caller's next act is to reset this stream on a socket every stream
        // shares, and an interrupted virtual thread blocked in a socket write closes that socket.
    }

    /** The request body: each write goes out as DATA at once, split as the windows and frame size require. */
    private final class RequestBody extends BulkOutputStream implements SendWindow.Sender {
        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            while (len > 0) {
                int n;
                conn.lock.lock();
                try {
                    n = conn.sendWindow.take(sendWindow, id, "origin", len, Frames.DEFAULT_MAX_FRAME_SIZE,
                            System.nanoTime() + writeTimeoutNanos, this);
                } finally {
                    conn.lock.unlock();
                }
                if (n == SendWindow.DROPPED) {
                    return; // the origin answered and wants no more: the rest is dropped
                }
                try {
                    conn.writeData(id, b, off, n, false);
                } catch (IOException e) {
                    // refused when the origin's GOAWAY, still unread as the write failed, says it never saw this stream
                    throw conn.verdict.afterWriteFailed(id, e);
                }
                off += n;
                len -= n;
            }
        }

        /** Under the lock. */
        @Override
        public boolean maySend() throws IOException {
            if (requestStopped) {
                return false;
            }
            checkWritable();
            return true;
        }
    }

    @Override
    public String toString() {
        return "stream " + id + " on " + conn;
    }
}
