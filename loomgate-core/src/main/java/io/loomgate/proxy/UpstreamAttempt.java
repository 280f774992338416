package io.loomgate.proxy;

import io.loomgate.http.Headers;
import io.loomgate.http.HttpLimits;
import io.loomgate.http.HttpVersion;
import io.loomgate.http.Method;
import io.loomgate.http.RequestHead;
import io.loomgate.http.ResponseHead;
import io.loomgate.http1.BodyFraming;
import io.loomgate.http1.BodyInputStream;
import io.loomgate.http1.ChunkedOutputStream;
import io.loomgate.http1.HttpOutput;
import io.loomgate.http1.HttpParseException;
import io.loomgate.http2.Http2ClientStream;
import io.loomgate.threads.ConnectionExecutors;
import io.loomgate.upstream.Endpoint;
import io.loomgate.upstream.Http2Pool;
import io.loomgate.upstream.PooledConnection;
import io.loomgate.upstream.UpstreamMember;
import io.loomgate.upstream.UpstreamPool;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One try at getting a response from one endpoint: owns the connection it checked out from {@link #connect} until
 * {@link #finish} gives it back (or {@link #close} throws it away), and records what happened on the wire, which is
 * what the retry decision reads ({@link #facts()}). A retry is another attempt, on the same or another endpoint.
 *
 * <p>Lifecycle, all on the request's thread: {@code connect → sendHead → relayBody → readHead → openBody → finish},
 * stopping anywhere on a failure; then {@link #close()}, always (try-with-resources or a finally), which discards
 * the connection unless {@link #finish} already settled it. Every I/O method throws the raw {@link IOException};
 * the caller classifies it once ({@link FailureClassifier}). The endpoint's in-flight count covers the attempt from
 * construction to close.
 *
 * <p>HTTP/2 endpoints ({@link Endpoint#http2()}): the attempt leases a stream slot on one of the endpoint's
 * multiplexed connections instead of a connection ({@link Http2Pool}), and is one {@link Http2ClientStream}: the same
 * phases, the head translated to HTTP/2 fields, the body as DATA frames. {@link #finish} with anything left
 * unfinished, or {@link #close}, resets the stream (RST_STREAM CANCEL), so the origin stops working on a request the
 * client gave up.
 *
 * <p>Full duplex (issue 34): the request body goes on a thread beside the request's own while the response is read,
 * always to an HTTP/2 origin and to an https HTTP/1.1 one, to a plain HTTP/1.1 one when it is chunked or larger than
 * {@link #SENT_BEFORE_HEAD_MAX}, or from that origin's first answer mid-upload on (see {@link #relayBody}); so an origin that answers as it reads is fed and drained at once. That relay ends, or is
 * stopped and its connection discarded, before the attempt settles ({@link #endUpload}, {@link #finish}).
 */
final class UpstreamAttempt implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(UpstreamAttempt.class);
    /**
     * The largest request body sent on the request's own thread before the head is awaited (plain HTTP/1.1 origins):
     * it fits the sockets' buffers both ways, so its writes and an echo of it complete whatever the origin does; a
     * larger one, or one of unknown length, goes beside (full duplex, {@link #relayBody}).
     */
    static final long SENT_BEFORE_HEAD_MAX = 64 * 1024;
    /** Informational (1xx) heads accepted before the final one; more is an origin gone wrong (or hostile): 502. */
    static final int MAX_INTERIM_RESPONSES = 32;

    /** What an attempt did before it failed: the facts a retry decision needs (cf. Pingora's error_while_proxy). */
    record Facts(int number, boolean reused, boolean requestSent, boolean hadBody, boolean idempotent,
                 boolean responseStarted) {
    }

    /** Receives the informational heads (1xx other than 100 and 101) the origin sends before its answer. */
    @FunctionalInterface
    interface InterimSink {
        void accept(ResponseHead interim) throws IOException;
    }

    private final UpstreamMember member;
    private final UpstreamPool pool;
    private final int number;
    /** Volatile (with {@link #stream}) only for {@link #abort()}, which another thread may call. */
    private volatile PooledConnection connection;
    /** The stream slot leased when the endpoint speaks HTTP/2 (null otherwise, or when it fell back to HTTP/1.1). */
    private Http2Pool.Lease h2Lease;
    private volatile Http2ClientStream stream;
    /** Whether the leased slot was handed to {@code open} (which consumes it, whether it succeeds or not). */
    private boolean leaseUsed;
    /**
     * Sends the request body, or its rest, on a thread of its own while this one reads the response (full duplex,
     * see {@link #relayBody}); null when the body was sent on the request's thread. Ended (or given up on, with the
     * connection discarded) before the attempt settles: one owner per connection.
     */
    private Thread upload;
    /** How the upload ended badly, if it did: a client read failure outranks the reset it causes upstream. */
    private volatile IOException uploadFailure;
    /** Request body bytes sent so far, by whichever thread sent them. */
    private volatile long uploaded;
    /** Set by the upload thread as it ends, however it ends. */
    private volatile boolean uploadEnded;
    /** Set when the origin's answer says it reads no more: the upload beside stops at its next piece. */
    private volatile boolean uploadCut;
    /** Set when a retry took the request body over: stopping the relay must not cut the client's input. */
    private volatile boolean uploadReleased;
    /** Ends a read of the client's body blocked in the upload thread (the downstream's); null for none. */
    private Runnable stopClientBody;
    /** Whether stopping the upload had to cut the client's body: the rest of it can never be read. */
    private boolean clientBodyCut;
    private boolean requestSent;
    private boolean hadBody;
    private boolean idempotent;
    private boolean responseStarted;
    private long sentNanos;
    private boolean settled;
    /** Informational heads read so far, before the final one. */
    private int interims;
    /** When the response head must have arrived (System.nanoTime), set by the first head read; 0 before. */
    private long headDeadline;
    /** A final head read while the body was being sent: readHead returns it. */
    private ResponseHead earlyHead;
    /** Whether the upload stopped for {@link #earlyHead} before the whole body was sent. */
    private boolean uploadStopped;
    /**
     * {@link #LIVE} until either {@link #abort} (another thread) or {@link #finish} (the owner) ends it, whichever
     * comes first: an abort after finish must not touch a connection already back in the pool, and a finish after an
     * abort must not give back a connection the abort closed.
     */
    private final AtomicInteger phase = new AtomicInteger(LIVE);
    private static final int LIVE = 0;
    private static final int ABORTED = 1;
    private static final int SETTLED = 2;

    /** @param number 0 for the first attempt of an exchange; a later one dials a fresh connection */
    UpstreamAttempt(UpstreamMember member, int number) {
        this.member = member;
        this.pool = member.pool();
        this.number = number;
        pool.state().attemptStarted();
    }

    Endpoint endpoint() {
        return pool.endpoint();
    }

    /** What ends a read of the client's body that the upload thread is blocked in, should it have to be stopped. */
    void stopClientBodyWith(Runnable action) {
        this.stopClientBody = action;
    }

    /** The endpoint as the route's upstream sees it (weight, health), chosen by its balancer. */
    UpstreamMember member() {
        return member;
    }

    int number() {
        return number;
    }

    /** Whether the connection served an earlier exchange; false before {@link #connect}. */
    boolean reused() {
        return h2Lease != null ? h2Lease.reused() : connection != null && connection.reused();
    }

    /** System.nanoTime() when the request head was written; 0 before. */
    long sentNanos() {
        return sentNanos;
    }

    Facts facts() {
        return new Facts(number, reused(), requestSent, hadBody, idempotent, responseStarted);
    }

    /**
     * Checks a connection out of the endpoint's pool, waiting for a free one until the deadline; a retry skips idle
     * connections (one of them just failed) and dials.
     */
    void connect(long deadlineNanos) throws IOException {
        Http2Pool h2 = pool.http2();
        if (h2 != null) {
            h2Lease = h2.acquire(deadlineNanos);
            if (h2Lease != null) {
                failIfAborted();
                return;
            }
        }
        connection = pool.acquire(deadlineNanos, number > 0);
        failIfAborted(); // an abort that came before the connection did not see it
    }

    /** After a connection or stream was set: an abort that ran before could not reach it, so this ends it. */
    private void failIfAborted() throws IOException {
        if (phase.get() == ABORTED) {
            throw new IOException(this + " cancelled");
        }
    }

    /** Whether this attempt is a stream on an HTTP/2 connection. */
    boolean isHttp2() {
        return h2Lease != null;
    }

    /**
     * Writes the request head: Host is the endpoint's authority unless the route preserves the client's, and the
     * framing fields are the ones this side will use. Flushed at once when no body follows.
     */
    void sendHead(RequestHead request, BodyFraming framing, boolean preserveHost) throws IOException {
        if (h2Lease != null) {
            sendHttp2Head(request, framing, preserveHost);
            return;
        }
        Headers h = request.headers();
        Endpoint e = endpoint();
        if (!preserveHost || !h.contains("Host")) {
            h.set("Host", e.port() == e.defaultPort() ? e.host() : e.authority());
        }
        switch (framing) {
            case BodyFraming.Fixed f -> h.set("Content-Length", Long.toString(f.length()));
            case BodyFraming.Chunked c -> {
                h.remove("Content-Length");
                h.set("Transfer-Encoding", "chunked");
            }
            default -> h.remove("Content-Length");
        }
        hadBody = !(framing instanceof BodyFraming.None);
        idempotent = Method.isIdempotent(request.method());
        HttpOutput out = connection.output();
        requestSent = true;
        out.writeRequestHead(request.isHttp11() ? request
                : new RequestHead(request.method(), request.target(), HttpVersion.HTTP_1_1, h));
        sentNanos = System.nanoTime();
        if (!hadBody) {
            out.flush();
        }
    }

    /**
     * Opens the stream with the request head as HTTP/2 fields: Host becomes {@code :authority} (the endpoint's
     * unless the route preserves the client's), connection-specific fields stay out, content-length is sent for a
     * known length.
     */
    private void sendHttp2Head(RequestHead request, BodyFraming framing, boolean preserveHost) throws IOException {
        Headers h = request.headers();
        Endpoint e = endpoint();
        String host = h.first("Host");
        String authority = preserveHost && host != null ? host
                : e.port() == e.defaultPort() ? e.host() : e.authority();
        if (framing instanceof BodyFraming.Fixed f) {
            h.set("Content-Length", Long.toString(f.length()));
        } else {
            h.remove("Content-Length");
        }
        hadBody = !(framing instanceof BodyFraming.None || framing instanceof BodyFraming.Fixed f && f.length() == 0);
        idempotent = Method.isIdempotent(request.method());
        requestSent = true;
        leaseUsed = true;
        stream = h2Lease.connection().open(request.method(), e.tls() ? "https" : "http", authority, request.target(),
                h, !hadBody);
        sentNanos = System.nanoTime();
        failIfAborted(); // close() resets the stream
    }

    /**
     * Streams the client's body to the origin in the framing the head announced; returns the bytes copied. A failure
     * reading the client comes out as {@link BodyRelay.ReadFailed}, writing the origin as
     * {@link BodyRelay.WriteFailed}.
     *
     * <p>A body that goes beside this thread from the start (see the class comment) returns 0 here; the bytes sent
     * are {@link #uploaded()}. For one sent here: the origin may answer before it has the whole body (RFC 9112 §9.5).
     * Whenever its bytes arrive mid-upload they are read as a head, within {@code timeout}: an informational one goes to {@code interim} and the upload
     * goes on here; a final one is what {@link #readHead} returns, and then either the origin said it closes
     * ({@code Connection: close}: it will not read the rest, so the upload stops, {@link #answeredEarly()}) or the
     * rest of the body goes on a thread of its own while the answer is relayed: an origin that streams its answer as
     * it reads (an echo, a transcoder) is fed and drained at once, where sending the whole body first deadlocks
     * both sides once their socket buffers fill (issue 34). HAProxy and Envoy relay both ways like this.
     */
    long relayBody(BodyInputStream body, BodyFraming framing, Duration timeout, InterimSink interim)
            throws IOException {
        if (framing instanceof BodyFraming.None) {
            return 0;
        }
        if (stream != null) {
            return relayHttp2Body(body, framing, timeout);
        }
        HttpOutput out = connection.output();
        ChunkedOutputStream chunks = framing instanceof BodyFraming.Chunked ? new ChunkedOutputStream(out) : null;
        long length = chunks != null ? -1 : ((BodyFraming.Fixed) framing).length();
        if (endpoint().tls() || length < 0 || length > SENT_BEFORE_HEAD_MAX) {
            // The body goes beside this thread while the head is awaited: an origin that answers as it reads may
            // wait for the gateway to read before it reads more, and a client may wait for that answer before it
            // sends more (a stream over one POST), so watching for its answer between pieces is not enough; over TLS
            // that answer could not even be seen without reading it (available() counts decrypted bytes only).
            startUpload(body, "h1-upload-" + endpoint().authority(), () -> {
                BodyRelay.copy(body, new Counted(chunks != null ? chunks : out), length);
                try {
                    if (chunks != null) {
                        chunks.finish(body.trailers());
                    }
                    out.flush();
                } catch (IOException failed) {
                    throw new BodyRelay.WriteFailed(failed);
                }
            });
            return 0;
        }
        AnswerWatch watched = new AnswerWatch(chunks != null ? chunks : out);
        while (true) {
            try {
                BodyRelay.copy(body, watched, length);
                break;
            } catch (BodyRelay.WriteFailed e) {
                if (!(e.getCause() instanceof OriginAnswered)) {
                    throw e;
                }
                out.flush(); // what was written so far goes out in order; the upload may resume after an interim
                earlyHead = readOneHead(timeout, interim);
                if (earlyHead != null) {
                    // The watch looks after every piece, the last one too: an origin that read a fixed-length body
                    // whole may answer before the watch looks. That answer came in time, and the client's body was
                    // read whole, so its connection stays open.
                    long sent = watched.written();
                    uploaded = sent;
                    if (sent == length) {
                        return sent;
                    }
                    if (earlyHead.status() == 101 || earlyHead.headers().hasToken("Connection", "close")) {
                        uploadStopped = true;
                        return sent;
                    }
                    OutputStream to = chunks != null ? chunks : out;
                    startUpload(body, "h1-upload-" + endpoint().authority(), () -> {
                        BodyRelay.copy(body, new Counted(to), length < 0 ? -1 : length - sent);
                        try {
                            if (chunks != null) {
                                chunks.finish(body.trailers());
                            }
                            out.flush();
                        } catch (IOException failed) {
                            throw new BodyRelay.WriteFailed(failed);
                        }
                    });
                    return sent;
                }
                // An interim head mid-upload had its own timeout; the wait for the final head starts after the body.
                headDeadline = 0;
            }
        }
        if (chunks != null) {
            chunks.finish(body.trailers());
        }
        out.flush();
        return watched.written();
    }

    /**
     * The body as DATA frames. A known length is sent now; an unknown one (a stream: gRPC, uploads of any size) by a
     * virtual thread of its own while this thread goes on to read the response, and 0 is returned.
     */
    private long relayHttp2Body(BodyInputStream body, BodyFraming framing, Duration timeout) throws IOException {
        stream.setTimeouts(timeout, timeout);
        if (!hadBody) {
            return 0;
        }
        // Known length or not, the body goes while the response is read: an origin that answers as it reads (a
        // stream, an echo) would otherwise fill the stream's window towards the gateway and stop reading (issue 34).
        Http2ClientStream s = stream;
        long length = framing instanceof BodyFraming.Fixed f ? f.length() : -1;
        startUpload(body, "h2-upload-" + endpoint().authority() + "-" + s.id(), () -> {
            BodyRelay.copy(body, new Counted(s.requestBody()), length);
            try {
                s.endRequest(body.trailers());
            } catch (IOException e) {
                throw new BodyRelay.WriteFailed(e);
            }
        });
        return 0;
    }

    /** The body's relay on a thread beside this one; what it does when the body's end is sent. */
    @FunctionalInterface
    private interface Upload {
        void run() throws IOException;
    }

    /**
     * Starts the request body's relay beside the request's thread (of its kind: ConnectionExecutors). A failure
     * stops the origin: a client that failed mid-body must not leave a request the origin waits on (HTTP/1.1: the
     * connection is closed, which also ends the response's relay, reported as the client's failure; HTTP/2: the
     * stream is reset). A write failure over HTTP/1.1 leaves the response alone: an origin may stop reading a body
     * it has answered in full.
     */
    private void startUpload(BodyInputStream body, String name, Upload task) throws BodyRelay.ReadFailed {
        try {
            body.startReading(); // a "100 Continue" goes now: later this thread may be writing the response
        } catch (IOException e) {
            throw new BodyRelay.ReadFailed(e);
        }
        upload = ConnectionExecutors.startBeside(name, () -> {
            try {
                task.run();
            } catch (BodyRelay.ReadFailed e) {
                uploadFailure = e; // the client's fault: the origin stops waiting for the rest
                stopOrigin();
            } catch (IOException | RuntimeException e) {
                uploadFailure = e instanceof BodyRelay.WriteFailed w ? w
                        : new BodyRelay.WriteFailed(e instanceof IOException io ? io : new IOException(e));
                if (stream != null) {
                    stream.cancel();
                }
            } finally {
                uploadEnded = true;
            }
        });
    }

    /** Ends the origin's side of the attempt from the upload's thread: the stream reset, or the socket closed. */
    private void stopOrigin() {
        Http2ClientStream s = stream;
        if (s != null) {
            s.cancel();
        } else {
            abort();
        }
    }

    /** Counts the body's bytes as they are sent, for the access log whatever way the upload ends. */
    private final class Counted extends OutputStream {
        private final OutputStream out;

        Counted(OutputStream out) {
            this.out = out;
        }

        @Override
        public void write(int b) throws IOException {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            if (uploadCut) {
                throw new BodyRelay.WriteFailed(new IOException("the origin answered and closes: upload stopped"));
            }
            out.write(b, off, len);
            uploaded += len; // only the upload thread writes it
        }

        @Override
        public void flush() throws IOException {
            out.flush();
        }
    }

    /**
     * After the response ended: waits up to {@code grace} for the request body's relay to end (an origin that answers
     * as it reads ends its answer just after the body's end reached it, so the relay is finishing its last write).
     * Returns whether the whole body went through; false when the relay failed or was still running, which is then
     * stopped: the client's body reading ended ({@code stopClientBody}), the origin's side discarded. Then the
     * connection cannot carry another request on either side.
     */
    boolean endUpload(Duration grace) {
        Thread t = upload;
        if (t == null) {
            return true;
        }
        if (!join(t, grace)) {
            stopUpload();
            return false;
        }
        return uploadFailure == null;
    }

    /**
     * Whether the request body's relay beside this thread is still sending (after a moment's wait: a body sent whole
     * before the answer came is ending its relay now), so that the body cannot go to another attempt.
     */
    boolean uploadBusy() {
        Thread t = upload;
        return t != null && !join(t, Duration.ofMillis(100));
    }

    /**
     * Gives up the request body's relay beside this thread for a retry that takes the body over (see
     * {@link Retries#takeBodyForRetry}): only the origin's side is stopped (the stream reset, or the connection
     * closed), so the relay's next write fails; the client's input is left alone, since the next attempt goes on
     * reading it. The relay ends once a read of the client it is blocked in lands (its bytes kept for the retry).
     */
    void releaseUpload() {
        uploadReleased = true;
        if (uploadRunning()) {
            stopOrigin();
        }
    }

    /** Whether a request body's relay runs beside this thread and has not ended. */
    boolean uploadRunning() {
        return upload != null && !uploadEnded;
    }

    /**
     * Whether another attempt cannot have the request body: a relay beside still holds it, or stopping one had to
     * cut the client's input, so the rest of the body can never be read.
     */
    boolean bodyLost() {
        return uploadRunning() || clientBodyCut;
    }

    /** The client's failure while its body was relayed beside this thread, if that is how the upload ended. */
    IOException clientBodyFailure() {
        Thread t = upload;
        if (t == null) {
            return null;
        }
        join(t, UPLOAD_STOP_WAIT); // its failure stopped the origin, which is what failed the caller: let it land
        return uploadFailure instanceof BodyRelay.ReadFailed r ? r : null;
    }

    /** How long a stopped upload is waited for: its next write fails at once, a read of the client is cut. */
    static final Duration UPLOAD_STOP_WAIT = Duration.ofSeconds(1);

    /**
     * Stops an upload still running: the origin's side first (its next write fails), and, if it is still reading the
     * client after a moment, the client's body too; then waits for it, briefly. One still running after that touches
     * nothing the pool or the next request shares: its connection is discarded and its client's input is cut.
     */
    private void stopUpload() {
        Thread t = upload;
        if (t == null || uploadEnded) {
            return;
        }
        if (stream != null) {
            stream.cancel();
        } else {
            abort();
        }
        if (!join(t, Duration.ofMillis(100)) && stopClientBody != null && !uploadReleased) {
            clientBodyCut = true;
            stopClientBody.run();
            if (!join(t, UPLOAD_STOP_WAIT)) {
                log.debug("{}: request body relay still running after it was stopped", this);
            }
        }
    }

    private static boolean join(Thread t, Duration wait) {
        try {
            return t.join(wait);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return !t.isAlive();
        }
    }

    /** Bytes of the request body sent so far, on this thread or beside it. */
    long uploaded() {
        return uploaded;
    }

    /**
     * Whether the origin gave its final answer before the request body was all sent and the upload was stopped for
     * it (its answer said {@code Connection: close}), whether here or beside this thread.
     */
    boolean answeredEarly() {
        return uploadStopped || uploadCut;
    }

    /** Whether the origin has sent bytes not read yet (after a failed upload: maybe its early answer). */
    boolean hasResponseBytes() {
        if (stream != null) {
            return stream.hasHead();
        }
        try {
            return connection.input().available() > 0;
        } catch (IOException e) {
            return false;
        }
    }

    /** The origin began answering while the request body was still being sent. */
    static final class OriginAnswered extends IOException {
        OriginAnswered() {
            super("origin answered before the whole request body was sent");
        }
    }

    /**
     * The upload's output, which stops with {@link OriginAnswered} once the origin has sent anything: one
     * {@code available()} (a cheap system call) per piece of body, not per byte, and only after the piece was
     * written, so no byte of the body is lost when the upload resumes.
     */
    private final class AnswerWatch extends OutputStream {
        private final OutputStream out;
        private long written;

        AnswerWatch(OutputStream out) {
            this.out = out;
        }

        @Override
        public void write(int b) throws IOException {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            out.write(b, off, len);
            written += len;
            if (connection.input().available() > 0) {
                throw new OriginAnswered();
            }
        }

        /** Bytes of the body written so far. */
        long written() {
            return written;
        }

        @Override
        public void flush() throws IOException {
            out.flush();
        }
    }

    /**
     * Reads the final response head within {@code timeout}, passing informational heads on: a 100 belongs to the
     * Expect the gateway removed and is dropped, others go to {@code interim}. A 101 is final, and only allowed when
     * the request asked for an upgrade.
     */
    ResponseHead readHead(Duration timeout, boolean upgradeRequested, InterimSink interim) throws IOException {
        if (stream != null) {
            return readHttp2Head(timeout, interim);
        }
        ResponseHead head = earlyHead;
        earlyHead = null;
        try {
            while (head == null) {
                head = readOneHead(timeout, interim);
            }
        } catch (IOException e) {
            IOException client = upload == null ? null : clientBodyFailure(); // it closed the connection
            throw client != null ? client : e;
        }
        if (uploadRunning() && (head.status() == 101 || head.headers().hasToken("Connection", "close"))) {
            uploadCut = true; // the origin will not read the rest: the relay beside stops at its next piece
        }
        if (head.status() == 101 && !upgradeRequested) {
            throw new HttpParseException(502, "101 Switching Protocols to a request that asked no upgrade");
        }
        return head;
    }

    /**
     * Reads one head: an informational one (not 101) goes to {@code interim} (a 100 is dropped) and null is returned;
     * a final one (or 101) is returned. The timeout runs from the first head read to the final one, whatever
     * interim heads arrive between, and at most {@link #MAX_INTERIM_RESPONSES} of those are accepted.
     */
    private ResponseHead readOneHead(Duration timeout, InterimSink interim) throws IOException {
        if (headDeadline == 0) {
            headDeadline = System.nanoTime() + timeout.toNanos();
        }
        connection.setReadTimeout(timeout);
        connection.setDeadline(headDeadline, "response head");
        try {
            ResponseHead head = connection.input().readResponseHead();
            responseStarted = true;
            if (head.status() == 101 || !head.isInformational()) {
                return head;
            }
            if (++interims > MAX_INTERIM_RESPONSES) {
                throw new HttpParseException(502, "more than " + MAX_INTERIM_RESPONSES
                        + " informational responses before the final one");
            }
            if (head.status() != 100) {
                interim.accept(head);
            }
            return null;
        } finally {
            connection.clearDeadline();
        }
    }

    /**
     * Makes sure the origin is still there after its head: when the body has bytes to come and none has arrived
     * yet, waits up to {@code graceMillis} for the first; if the origin closes instead (it died between head and
     * body), this fails as a reset, while nothing has gone to the client and the exchange may still try elsewhere.
     * A body that is simply slow to start (a stream) passes after the grace.
     */
    void awaitBodyStart(BodyFraming framing, int graceMillis) throws IOException {
        if (stream != null) {
            return; // HTTP/2: a connection that dies now fails the stream, and the body read reports it
        }
        if (framing instanceof BodyFraming.None || framing instanceof BodyFraming.Fixed f && f.length() == 0) {
            return;
        }
        if (connection.awaitData(graceMillis) == PooledConnection.Readiness.CLOSED) {
            throw new EOFException("closed the connection after the response head, before its body");
        }
    }

    /** The final head from an HTTP/2 origin (interim ones passed on as over HTTP/1.1), within {@code timeout}. */
    private ResponseHead readHttp2Head(Duration timeout, InterimSink interim) throws IOException {
        if (headDeadline == 0) {
            headDeadline = System.nanoTime() + timeout.toNanos();
        }
        while (true) {
            ResponseHead head;
            try {
                head = stream.awaitHead(headDeadline);
            } catch (IOException e) {
                IOException failed = uploadFailure; // the client's read failure explains the reset it caused
                throw failed != null && !(failed instanceof BodyRelay.WriteFailed) ? failed : e;
            }
            responseStarted = true;
            if (!head.isInformational()) {
                return head;
            }
            if (++interims > MAX_INTERIM_RESPONSES) {
                throw new HttpParseException(502, "more than " + MAX_INTERIM_RESPONSES
                        + " informational responses before the final one");
            }
            if (head.status() != 100) {
                interim.accept(head);
            }
        }
    }

    /**
     * How the response body is framed: from the head's fields (RFC 9112 §6.3) over HTTP/1.1; over HTTP/2 the stream
     * frames it, so a head that ended the stream has an empty body and one without content-length a body of unknown
     * length (which an HTTP/1.1 client gets chunked).
     */
    BodyFraming responseFraming(String method, ResponseHead head) throws HttpParseException {
        BodyFraming f = BodyFraming.ofResponse(method, head);
        if (stream != null && stream.endedWithHead() && !(f instanceof BodyFraming.None)) {
            return new BodyFraming.Fixed(0);
        }
        return f;
    }

    /** The response body in the origin's framing; each read waits at most {@code readTimeout}. */
    BodyInputStream openBody(BodyFraming framing, HttpLimits limits, Duration readTimeout) {
        if (stream != null) {
            stream.setTimeouts(readTimeout, readTimeout);
            return framing instanceof BodyFraming.None ? BodyFraming.NONE.open(null, limits) : new Http2UpstreamBody(stream);
        }
        connection.setReadTimeout(readTimeout);
        return framing.open(connection.input(), limits);
    }

    /** The raw connection, for the byte pipes after a 101; still owned (and closed) by this attempt. */
    PooledConnection connection() {
        return connection;
    }

    /** Settles the connection: back to the pool if the exchange ended cleanly and the origin keeps it, else closed. */
    void finish(boolean reusable) {
        if (settled) {
            throw new IllegalStateException("attempt " + number + " to " + endpoint() + " already finished");
        }
        settled = true;
        if (uploadRunning()) {
            reusable = false; // a body relay still running: the connection cannot go back to the pool
            stopUpload();
        } else if (upload != null && uploadFailure != null) {
            reusable = false;
        }
        if (!phase.compareAndSet(LIVE, SETTLED)) {
            reusable = false; // aborted: its connection was closed, or its stream reset
        }
        pool.state().attemptEnded();
        if (h2Lease != null) {
            finishHttp2(reusable);
            return;
        }
        if (connection == null) {
            return;
        }
        if (reusable) {
            pool.release(connection);
        } else {
            pool.discard(connection);
        }
    }

    /** A clean stream is simply over; anything else is reset, and the upload thread waited for (briefly). */
    private void finishHttp2(boolean clean) {
        if (stream == null) {
            if (!leaseUsed) {
                h2Lease.connection().unreserve();
            }
            return;
        }
        if (!clean || !stream.isComplete()) {
            stream.cancel();
        }
    }

    /**
     * Cancels the attempt from another thread (a gRPC deadline's watchdog, an HTTP/2 client's RST_STREAM) without
     * blocking. An HTTP/2 stream is reset (RST_STREAM CANCEL, from a virtual thread of its own: writing a frame may
     * wait for the shared connection, and the caller must not), which fails every wait on it and the owner's next
     * write, while the connection goes on serving its other streams; an HTTP/1.1 connection's socket is closed, which
     * fails whatever the owner waits on (a write, the head, a body read). The owner then discards as after any
     * failure. Once {@link #finish} has settled the attempt this does nothing: its connection may already serve
     * another exchange.
     */
    void abort() {
        if (!phase.compareAndSet(LIVE, ABORTED)) {
            return;
        }
        Http2ClientStream s = stream;
        if (s != null) {
            ConnectionExecutors.startVirtual("h2-upstream-cancel-" + s.id(), s::cancel);
        }
        PooledConnection c = connection;
        if (c != null) {
            try {
                c.socket().close();
            } catch (IOException e) {
                // closing is all we wanted; the owner sees the failure on its next read or write
            }
        }
    }

    /** Discards the connection unless {@link #finish} settled it: a connection left mid-exchange cannot be trusted. */
    @Override
    public void close() {
        if (!settled) {
            finish(false);
        }
    }

    @Override
    public String toString() {
        return "attempt " + number + " to " + endpoint() + (stream != null ? " (h2 " + stream + ")" : "")
                + (reused() ? " (reused connection)" : "");
    }
}
