package io.loomgate.proxy;

import io.loomgate.http.GeneratedField;
import io.loomgate.http.Headers;
import io.loomgate.http.HttpLimits;
import io.loomgate.http.HttpVersion;
import io.loomgate.http.RequestHead;
import io.loomgate.http.ResponseHead;
import io.loomgate.http1.BodyFraming;
import io.loomgate.http1.BodyInputStream;
import io.loomgate.http1.ChunkedOutputStream;
import io.loomgate.http1.HttpOutput;
import io.loomgate.upstream.Endpoint;
import io.loomgate.upstream.PooledConnection;
import io.loomgate.upstream.UpstreamPool;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.time.Duration;

/**
 * An attempt over one HTTP/1.1 connection lent by the endpoint's pool: the head as text, the body in the framing the
 * head announced, the connection given back to the pool (or discarded) at the end. Aborting closes its socket, which
 * fails whatever the owner waits on.
 *
 * <p>The request body goes beside the request's thread to an https origin, or when it is chunked or larger than
 * {@link #SENT_BEFORE_HEAD_MAX}; a small one to a plain origin is sent here, watching between pieces for an answer
 * that comes before the whole body (RFC 9112 §9.5), from which point the rest goes beside (see {@link #relayBody}),
 * and for a client that has none of the rest waiting, whose rest goes beside too: this thread never blocks on the
 * client, so it notices an origin that fails meanwhile.
 */
final class Http1Codec implements UpstreamCodec {
    /**
     * The largest request body sent on the request's own thread before the head is awaited (plain HTTP/1.1 origins):
     * it fits the sockets' buffers both ways, so its writes and an echo of it complete whatever the origin does; a
     * larger one, or one of unknown length, goes beside (full duplex).
     */
    static final long SENT_BEFORE_HEAD_MAX = 64 * 1024;

    private final PooledConnection connection;
    private final UpstreamPool pool;
    private final Endpoint endpoint;
    /** The attempt this codec serves: {@link #stopOrigin} is its abort. */
    private final UpstreamAttempt attempt;
    /** The answer has no body (HEAD, 204, 304): bytes after its head are an origin's mistake (see finish). */
    private boolean bodiless;

    Http1Codec(PooledConnection connection, UpstreamPool pool, UpstreamAttempt attempt) {
        this.connection = connection;
        this.pool = pool;
        this.endpoint = pool.endpoint();
        this.attempt = attempt;
    }

    @Override
    public boolean reused() {
        return connection.reused();
    }

    @Override
    public boolean sendHead(RequestHead request, BodyFraming framing, boolean preserveHost, GeneratedField generated)
            throws IOException {
        Headers h = request.headers();
        if (!preserveHost || !h.contains("Host")) {
            h.set("Host", UpstreamCodec.hostOf(endpoint));
        }
        // instanceof, not a pattern switch: JDK 25's AOT cache does not hold its bootstrap, which
        // spun a class before the first answer (docs/architecture.md, "Start-up")
        if (framing instanceof BodyFraming.Fixed f) {
            h.set("Content-Length", Long.toString(f.length()));
        } else if (framing instanceof BodyFraming.Chunked) {
            h.remove("Content-Length");
            h.set("Transfer-Encoding", "chunked");
        } else {
            h.remove("Content-Length");
        }
        boolean hasBody = !(framing instanceof BodyFraming.None);
        HttpOutput out = connection.output();
        out.writeRequestHead(request.isHttp11() ? request
                : new RequestHead(request.method(), request.target(), HttpVersion.HTTP_1_1, h), generated);
        if (!hasBody) {
            out.flush();
        }
        return hasBody;
    }

    /**
     * Sends the body here when it is small and the origin plain, else beside. Here, the origin may answer before it
     * has the whole body: whenever its bytes arrive mid-upload they are read as a head ({@code early}): an interim
     * one and the upload goes on here; a final one is what the attempt's readHead returns, and then either the origin
     * said it closes ({@code Connection: close} or 101: it will not read the rest, so the upload stops) or the rest
     * of the body goes beside while the answer is relayed: an origin that streams its answer as it reads (an echo, a
     * transcoder) is fed and drained at once, where sending the whole body first deadlocks both sides once their
     * socket buffers fill (issue 34).
     */
    @Override
    public long relayBody(BodyInputStream body, BodyFraming framing, Duration timeout, RequestUpload upload,
                          EarlyHead early) throws IOException {
        HttpOutput out = connection.output();
        ChunkedOutputStream chunks = framing instanceof BodyFraming.Chunked ? new ChunkedOutputStream(out) : null;
        long length = chunks != null ? -1 : ((BodyFraming.Fixed) framing).length();
        if (endpoint.tls() || length < 0 || length > SENT_BEFORE_HEAD_MAX) {
            // The body goes beside this thread while the head is awaited: an origin that answers as it reads may
            // wait for the gateway to read before it reads more, and a client may wait for that answer before it
            // sends more (a stream over one POST), so watching for its answer between pieces is not enough; over TLS
            // that answer could not even be seen without reading it (available() counts decrypted bytes only).
            relayBeside(body, upload, chunks, length);
            return 0;
        }
        if (body.readyBytes() == 0) {
            // Nothing of the body here yet (a client that sends its head first, or waits for a 100 Continue): the
            // body goes beside from its start, so this thread watches the origin while the client is awaited.
            relayBeside(body, upload, chunks, length);
            return 0;
        }
        AnswerWatch watched = new AnswerWatch(chunks != null ? chunks : out, body, length);
        while (true) {
            try {
                BodyRelay.copy(body, watched, length);
                break;
            } catch (BodyRelay.WriteFailed e) {
                if (e.getCause() instanceof ClientPaused) {
                    // The client has sent nothing more for now: its rest goes beside, and this thread reads the
                    // origin, so an origin that fails meanwhile (a reset, a close) is a 502 at once, not a 408
                    // at the client's read timeout (session 61).
                    out.flush();
                    long sent = watched.written;
                    upload.sentOnRequestThread(sent);
                    relayBeside(body, upload, chunks, length - sent);
                    return sent;
                }
                if (!(e.getCause() instanceof OriginAnswered)) {
                    throw e;
                }
                out.flush(); // what was written so far goes out in order; the upload may resume after an interim
                ResponseHead head = early.read();
                if (head != null) {
                    // The watch looks after every piece, the last one too: an origin that read a fixed-length body
                    // whole may answer before the watch looks. That answer came in time, and the client's body was
                    // read whole, so its connection stays open.
                    long sent = watched.written;
                    upload.sentOnRequestThread(sent);
                    if (sent == length) {
                        return sent;
                    }
                    if (head.status() == 101 || head.headers().hasToken("Connection", "close")) {
                        upload.stoppedForAnswer();
                        return sent;
                    }
                    relayBeside(body, upload, chunks, length - sent);
                    return sent;
                }
            }
        }
        if (chunks != null) {
            chunks.finish(body.trailers());
        }
        out.flush();
        return watched.written;
    }

    /** The body, or its rest ({@code length} bytes, -1 for chunked), on a thread beside the request's. */
    private void relayBeside(BodyInputStream body, RequestUpload upload, ChunkedOutputStream chunks, long length)
            throws BodyRelay.ReadFailed {
        HttpOutput out = connection.output();
        OutputStream to = upload.counting(chunks != null ? chunks : out);
        upload.start(body, "h1-upload-" + endpoint.authority(), this::stopOrigin, () -> { }, () -> {
            BodyRelay.copy(body, to, length);
            try {
                if (chunks != null) {
                    chunks.finish(body.trailers());
                }
                out.flush();
            } catch (IOException failed) {
                throw new BodyRelay.WriteFailed(failed);
            }
        });
    }

    /** The origin began answering while the request body was still being sent. */
    static final class OriginAnswered extends IOException {
        OriginAnswered() {
            super("origin answered before the whole request body was sent");
        }
    }

    /**
     * The client has none of the body's rest buffered: reading it here would block this thread on the client while
     * nothing watches the origin (session 61: an origin that reset then was seen only at the client's read timeout,
     * a 408 where a 502 was due).
     */
    static final class ClientPaused extends IOException {
        ClientPaused() {
            super("the client paused mid-body: the rest goes beside");
        }

        /** A signal, not a failure: no stack trace (it is thrown on an ordinary slow upload). */
        @Override
        public synchronized Throwable fillInStackTrace() {
            return this;
        }
    }

    /**
     * The upload's output, which stops with {@link OriginAnswered} once the origin has sent anything, or with
     * {@link ClientPaused} once the client's body has nothing more waiting before its end (in the gateway's buffer
     * or the socket's): two {@code available()} calls (cheap) per piece of body, not per byte, and only after the
     * piece was written, so no byte of the body is lost when the upload resumes, here or beside.
     */
    private final class AnswerWatch extends RequestUpload.PieceOutput {
        private final BodyInputStream body;
        private final long length;
        /** Bytes of the body written so far. */
        private long written;

        AnswerWatch(OutputStream out, BodyInputStream body, long length) {
            super(out);
            this.body = body;
            this.length = length;
        }

        @Override
        void afterPiece(int piece) throws IOException {
            written += piece;
            if (connection.input().available() > 0) {
                throw new OriginAnswered();
            }
            if (written < length && body.readyBytes() == 0) {
                throw new ClientPaused();
            }
        }
    }

    @Override
    public ResponseHead readHead(Duration timeout, long deadlineNanos) throws IOException {
        connection.setReadTimeout(timeout);
        connection.setDeadline(deadlineNanos, "response head");
        try {
            return connection.input().readResponseHead();
        } finally {
            connection.clearDeadline();
        }
    }

    /**
     * A failed read of the client beside closed this connection (the attempt's abort), which is what failed the
     * head's read: that failure is let land. An origin that failed by itself (a reset, a close: no abort) is
     * reported at once, not after a wait for the relay, which may be blocked on a paused client (session 61).
     */
    @Override
    public IOException explainHeadFailure(IOException e, RequestUpload upload) {
        IOException client = attempt.aborted() ? upload.clientBodyFailure() : upload.clientBodyFailureNow();
        return client != null ? client : e;
    }

    @Override
    public BodyFraming responseFraming(BodyFraming fromHead) {
        return fromHead;
    }

    /**
     * When the body has bytes to come and none has arrived yet, waits up to {@code graceMillis} for the first; if
     * the origin closes instead (it died between head and body), this fails as a reset.
     */
    @Override
    public void awaitBodyStart(BodyFraming framing, int graceMillis) throws IOException {
        if (framing instanceof BodyFraming.None || framing instanceof BodyFraming.Fixed f && f.length() == 0) {
            return;
        }
        if (connection.awaitData(graceMillis) == PooledConnection.Readiness.CLOSED) {
            throw new EOFException("closed the connection after the response head, before its body");
        }
    }

    @Override
    public BodyInputStream openBody(BodyFraming framing, HttpLimits limits, Duration readTimeout) {
        connection.setReadTimeout(readTimeout);
        bodiless = framing instanceof BodyFraming.None;
        BodyInputStream body = framing.open(connection.input(), limits);
        return framing instanceof BodyFraming.UntilClose ? TlsClosedBody.of(body, connection) : body;
    }

    @Override
    public boolean hasResponseBytes() {
        try {
            return connection.input().available() > 0;
        } catch (IOException e) {
            return false;
        }
    }

    @Override
    public PooledConnection connection() {
        return connection;
    }

    /**
     * Back to the pool when reusable, else closed. After an answer without a body, an origin that wrongly sent one
     * anyway (a HEAD answered with its GET's body, a 204 with bytes after its head) would have the next request on
     * this connection read those bytes as its answer: the connection's next lease probes it for bytes however short
     * its idle ({@link PooledConnection#probeOnNextLease}), and one with any is discarded. Only after such answers:
     * the hot paths' answers have bodies, whose framing ends them exactly, and bytes buffered past an answer's end
     * are found by every lease (isHealthy).
     */
    @Override
    public void finish(boolean reusable) {
        if (reusable && bodiless) {
            connection.probeOnNextLease();
        }
        if (reusable) {
            pool.release(connection);
        } else {
            pool.discard(connection);
        }
    }

    /** The attempt's abort: it closes the socket unless the attempt has already settled. */
    @Override
    public void stopOrigin() {
        attempt.abort();
    }

    @Override
    public void abort() {
        connection.abort(); // the plain socket: a TLS close would wait behind a write the origin does not take
    }

    @Override
    public boolean drainsAfterCancel() {
        return true;
    }

    @Override
    public String label() {
        return "";
    }
}
