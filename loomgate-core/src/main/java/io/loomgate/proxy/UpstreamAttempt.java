package io.loomgate.proxy;

import io.loomgate.http.ConnectionAttributes;
import io.loomgate.http.GeneratedField;
import io.loomgate.http.HttpLimits;
import io.loomgate.http.Method;
import io.loomgate.http.RequestHead;
import io.loomgate.http.ResponseHead;
import io.loomgate.http1.BodyFraming;
import io.loomgate.http1.BodyInputStream;
import io.loomgate.http1.HttpParseException;
import io.loomgate.threads.Deadline;
import io.loomgate.threads.VarHandles;
import io.loomgate.threads.Watchdog;
import io.loomgate.upstream.ConnectionLease;
import io.loomgate.upstream.Endpoint;
import io.loomgate.upstream.PooledConnection;
import io.loomgate.upstream.UpstreamMember;
import io.loomgate.upstream.UpstreamPool;
import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.net.SocketTimeoutException;
import java.time.Duration;

/**
 * One try at getting a response from one endpoint: owns the lease it checked out from {@link #connect} until
 * {@link #finish} gives it back (or {@link #close} throws it away), and records what happened on the wire, which is
 * what the retry decision reads ({@link #facts()}). A retry is another attempt, on the same or another endpoint.
 *
 * <p>Lifecycle, all on the request's thread: {@code connect → sendHead → relayBody → readHead → openBody → finish},
 * stopping anywhere on a failure; then {@link #close()}, always (try-with-resources or a finally), which discards
 * the connection unless {@link #finish} already settled it. Every I/O method throws the raw {@link IOException};
 * the caller classifies it once ({@link FailureClassifier}). The endpoint's in-flight count covers the attempt from
 * construction to close.
 *
 * <p>The protocol is the lease's ({@link UpstreamPool#lease}): an HTTP/1.1 connection or a stream slot on an
 * HTTP/2 connection, each moved by its {@link UpstreamCodec}. This class keeps what is the same for both: the
 * facts, the cap on informational heads and the head's deadline across them, the abort (once, and never after the
 * attempt settled), and the request body's relay beside the request's thread ({@link RequestUpload}, full duplex,
 * issue 34), which ends, or is stopped and its connection discarded, before the attempt settles
 * ({@link #endUpload}, {@link #finish}).
 */
final class UpstreamAttempt implements AutoCloseable, RefusedStreamCopy.Upload {
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
    /** The protocol's side, on the lease {@link #connect} took; null before. Volatile for {@link #abort()}. */
    private volatile UpstreamCodec codec;
    /**
     * The request body's upload: {@link RequestUpload#NONE} (shared, never started) until a body is sent, so a request
     * without one (every GET) makes none and holds none while it waits for its origin. Only the request's thread
     * sets it, before the upload starts; a refused stream's successor reads it from the next attempt's upload
     * ({@link #awaitReleasedUpload}), started after.
     */
    private RequestUpload upload = RequestUpload.NONE;
    /** What the listeners keep about the leased connection; null before {@link #connect}. */
    private ConnectionAttributes connectionAttributes;
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
    /**
     * {@link #LIVE} until either {@link #abort} (another thread) or {@link #finish} (the owner) ends it, whichever
     * comes first: an abort after finish must not touch a connection already back in the pool, and a finish after an
     * abort must not give back a connection the abort closed. A field with a VarHandle rather than an AtomicInteger:
     * one object less held by every attempt while it waits for its origin (16 bytes a young collection copies).
     */
    private volatile int phase; // LIVE (0) as made
    private static final VarHandle PHASE = VarHandles.field(MethodHandles.lookup(), "phase", int.class);
    private static final int LIVE = 0;
    private static final int ABORTED = 1;
    private static final int SETTLED = 2;
    /** The client cancelled while the final head was awaited: the answer is let come to keep the connection. */
    private static final int DRAINING = 3;
    /**
     * Set by the owner while it waits for the final head with the whole request sent (nothing beside it), from the
     * end of a bodiless request's head or else from readHead, the one state a client's cancel may turn into a drain
     * ({@link #clientCancelled}).
     */
    private volatile boolean awaitingHead;
    /**
     * Closes the connection if a drain outlasts {@link DrainAfterCancel#MAX_WAIT}: set by the cancel's thread, taken
     * once ({@link #endDrain}), by compare-and-set through {@link #DRAIN}, as a cancel may run twice.
     */
    @SuppressWarnings("unused")
    private volatile Deadline drainDeadline;
    private static final VarHandle DRAIN = VarHandles.field(MethodHandles.lookup(), "drainDeadline", Deadline.class);

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

    /** This attempt's own upload, made by the first use on the body's path (a request with a body). */
    private RequestUpload bodyUpload() {
        RequestUpload u = upload;
        if (u == RequestUpload.NONE) {
            upload = u = new RequestUpload(this);
        }
        return u;
    }

    /** What ends a read of the client's body that the upload thread is blocked in, should it have to be stopped. */
    void stopClientBodyWith(Runnable action) {
        bodyUpload().stopClientBodyWith(action);
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
        UpstreamCodec c = codec;
        return c != null && c.reused();
    }

    /** What the listeners keep about the leased connection (shared by an HTTP/2 connection's streams); null before. */
    ConnectionAttributes connectionAttributes() {
        return connectionAttributes;
    }

    /** System.nanoTime() when the request head was written; 0 before. */
    long sentNanos() {
        return sentNanos;
    }

    Facts facts() {
        return new Facts(number, reused(), requestSent, hadBody, idempotent, responseStarted);
    }

    /**
     * Checks a lease out of the endpoint's pool, waiting for a free one until the deadline; a retry skips idle
     * connections (one of them just failed) and dials.
     */
    void connect(long deadlineNanos) throws IOException {
        ConnectionLease lease = pool.lease(deadlineNanos, number > 0);
        connectionAttributes = lease.attributes();
        UpstreamCodec c = UpstreamCodec.of(lease, pool, this);
        if (phase == ABORTED) {
            // Cancelled while leasing (mostly: while dialling a fresh connection). The abort saw no codec, so nothing
            // closed the connection, and nothing was written on it: it goes back to the pool unused (an HTTP/1.1
            // connection idle, an HTTP/2 slot unreserved) instead of being closed and dialled again for the next one.
            settled = true;
            pool.state().attemptEnded();
            c.finish(true);
            throw new IOException(this + " cancelled while connecting");
        }
        codec = c;
        // An abort between the look above and the codec's publication did not see it either: close() discards.
        failIfAborted();
    }

    /** After a connection or stream was set: an abort that ran before could not reach it, so this ends it. */
    private void failIfAborted() throws IOException {
        if (phase == ABORTED) {
            throw new IOException(this + " cancelled");
        }
    }

    /**
     * Writes the request head: Host is the endpoint's authority unless the route preserves the client's, and the
     * framing fields are the ones this side will use. Flushed at once when no body follows.
     */
    void sendHead(RequestHead request, BodyFraming framing, boolean preserveHost, GeneratedField generated)
            throws IOException {
        idempotent = Method.isIdempotent(request.method());
        requestSent = true;
        // With no body to follow, the request is whole once this head is written: a cancel from here on may drain, as
        // in readHead. Marked before the write, not after it: the origin may have the whole head (and the client
        // reset meanwhile) before this thread runs again, and a mark after the write then came too late for that
        // cancel, which closed the connection (session 58's race in Http2StreamLifecycleTest: closed 1 ms after the
        // reset instead of after the drain's wait). A cancel during the write drains too: the write fails (the drain
        // then ends with the failure) or the origin gets the whole request, as after it.
        awaitingHead = framing instanceof BodyFraming.None;
        hadBody = codec.sendHead(request, framing, preserveHost, generated);
        sentNanos = System.nanoTime();
        failIfAborted(); // an HTTP/2 stream opened after an abort looked: close() resets it
        // (a stream thread still queued for its carrier here is common under load, when h2load's run ends)
        awaitingHead = !hadBody; // an HTTP/2 request of length 0 ends with its head too
    }

    /**
     * Streams the client's body to the origin in the framing the head announced; returns the bytes copied here. A
     * failure reading the client comes out as {@link BodyRelay.ReadFailed}, writing the origin as
     * {@link BodyRelay.WriteFailed}. A body that goes beside this thread returns 0; the bytes sent are
     * {@link #uploaded()}. An origin that answers mid-upload (HTTP/1.1, see {@link Http1Codec#relayBody}) has its
     * head read here within {@code timeout}: an informational one goes to {@code interim}, a final one is what
     * {@link #readHead} returns.
     */
    long relayBody(BodyInputStream body, BodyFraming framing, Duration timeout, InterimSink interim)
            throws IOException {
        if (framing instanceof BodyFraming.None) {
            return 0;
        }
        return codec.relayBody(body, framing, timeout, bodyUpload(), () -> {
            ResponseHead head = readOneHead(timeout, interim);
            if (head == null) {
                headDeadline = 0; // an interim head mid-upload had its own timeout; the final head's starts later
            }
            earlyHead = head;
            return head;
        });
    }

    /**
     * After the response ended: waits up to {@code grace} for the request body's relay to end. Returns whether the
     * whole body went through; false when the relay failed or was still running, which is then stopped: the
     * client's body reading ended, the origin's side discarded. Then the connection cannot carry another request on
     * either side.
     */
    boolean endUpload(Duration grace) {
        return upload.end(grace);
    }

    /** Whether the request body's relay beside is still sending, so that the body cannot go to another attempt. */
    boolean uploadBusy() {
        return upload.busy();
    }

    /**
     * Gives up the request body's relay beside this thread for a retry that takes the body over (see
     * {@link Retries#takeBodyForRetry}): only the origin's side is stopped; the client's input is left alone.
     */
    void releaseUpload() {
        if (upload != RequestUpload.NONE) { // the shared one is never started: nothing to give up, no field to set
            upload.release();
        }
    }

    /** Whether a request body's relay runs beside this thread and has not ended. */
    boolean uploadRunning() {
        return upload.running();
    }

    /**
     * After {@link #releaseUpload()} for a refused stream, from the next attempt's upload: waits for this one's to
     * end, until {@code deadlineNanos}; the client's failure if that is how it ended (see
     * {@link RequestUpload#awaitHandedOver}).
     */
    IOException awaitReleasedUpload(long deadlineNanos) throws SocketTimeoutException {
        return upload.awaitHandedOver(deadlineNanos);
    }

    /** The refused upload, as its body's successor waits for it ({@link #awaitReleasedUpload}). */
    @Override
    public IOException awaitEnd(long deadlineNanos) throws SocketTimeoutException {
        return awaitReleasedUpload(deadlineNanos);
    }

    /** The exchange ended with this refused upload's body never taken up: its pending read of the client is cut. */
    @Override
    public void cut() {
        upload.cutHandedOver();
    }

    /** Whether another attempt cannot have the request body (see {@link RequestUpload#bodyLost}). */
    boolean bodyLost() {
        return upload.bodyLost();
    }

    /** The client's failure while its body was relayed beside this thread, if that is how the upload ended. */
    IOException clientBodyFailure() {
        return upload.clientBodyFailure();
    }

    /** Bytes of the request body sent so far, on this thread or beside it. */
    long uploaded() {
        return upload.sent();
    }

    /**
     * Whether the origin gave its final answer before the request body was all sent and the upload was stopped for
     * it (its answer said {@code Connection: close}), whether here or beside this thread.
     */
    boolean answeredEarly() {
        return upload.answeredEarly();
    }

    /** Whether the origin has sent bytes not read yet (after a failed upload: maybe its early answer). */
    boolean hasResponseBytes() {
        return codec.hasResponseBytes();
    }

    /**
     * Reads the final response head within {@code timeout}, passing informational heads on: a 100 belongs to the
     * Expect the gateway removed and is dropped, others go to {@code interim}. A 101 is final, and only allowed when
     * the request asked for an upgrade (HTTP/2 origins never send one: their connection refuses it).
     */
    ResponseHead readHead(Duration timeout, boolean upgradeRequested, InterimSink interim) throws IOException {
        ResponseHead head = earlyHead;
        earlyHead = null;
        awaitingHead = head == null && !upload.running();
        try {
            while (head == null) {
                head = readOneHead(timeout, interim);
            }
        } catch (IOException e) {
            throw codec.explainHeadFailure(e, upload);
        } finally {
            awaitingHead = false; // before the caller looks at draining(): see clientCancelled
        }
        if (upload.running() && (head.status() == 101 || head.headers().hasToken("Connection", "close"))) {
            upload.cut(); // the origin will not read the rest: the relay beside stops at its next piece
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
        ResponseHead head = codec.readHead(timeout, headDeadline);
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
    }

    /**
     * Makes sure the origin is still there after its head: when the body has bytes to come and none has arrived
     * yet, waits up to {@code graceMillis} for the first; if the origin closes instead (it died between head and
     * body), this fails as a reset, while nothing has gone to the client and the exchange may still try elsewhere.
     * A body that is simply slow to start (a stream) passes after the grace.
     */
    void awaitBodyStart(BodyFraming framing, int graceMillis) throws IOException {
        codec.awaitBodyStart(framing, graceMillis);
    }

    /**
     * How the response body is framed: from the head's fields (RFC 9112 §6.3), as the protocol frames it (an HTTP/2
     * stream that ended with its head has an empty body).
     */
    BodyFraming responseFraming(String method, ResponseHead head) throws HttpParseException {
        return codec.responseFraming(BodyFraming.ofResponse(method, head));
    }

    /** The response body in the origin's framing; each read waits at most {@code readTimeout}. */
    BodyInputStream openBody(BodyFraming framing, HttpLimits limits, Duration readTimeout) {
        return codec.openBody(framing, limits, readTimeout);
    }

    /** The raw connection, for the byte pipes after a 101; still owned (and closed) by this attempt. */
    PooledConnection connection() {
        return codec.connection();
    }

    /** Settles the lease: back to the pool if the exchange ended cleanly and the origin keeps it, else thrown away. */
    void finish(boolean reusable) {
        settle(reusable, LIVE);
    }

    /** {@link #finish}; {@code from}: the phase the owner settles the attempt from (LIVE, or DRAINING after a drain). */
    private void settle(boolean reusable, int from) {
        if (settled) {
            throw new IllegalStateException("attempt " + number + " to " + endpoint() + " already finished");
        }
        settled = true;
        if (upload.running()) {
            reusable = false; // a body relay still running: the connection cannot go back to the pool
            upload.stop();
        } else if (upload.failed()) {
            reusable = false;
        }
        // Settled here unless aborted meanwhile (its connection closed, its stream reset, a drain's deadline passed).
        // Combined without a branch, as is the phase it settles from: an abort in the middle of a relayed answer (a
        // client that closed then), or a drain reaching a settle compiled before any drain had, is in no training's
        // profile, and as a branch C2 compiled each as a trap that made relayResponse's root not entrant.
        reusable &= PHASE.compareAndSet(this, from, SETTLED);
        endDrain();
        pool.state().attemptEnded();
        if (codec != null) {
            codec.finish(reusable);
        }
    }

    /** Whether {@link #abort()} ended the attempt (its own relay after a client failure, a cancel, a deadline). */
    boolean aborted() {
        return phase == ABORTED;
    }

    /**
     * Cancels the attempt from another thread (a gRPC deadline's watchdog, an HTTP/2 client's RST_STREAM, a drain's
     * deadline) without blocking: the codec ends the origin's side (an HTTP/2 stream reset, an HTTP/1.1 socket
     * closed), which fails whatever the owner waits on. The owner then discards as after any failure. Once
     * {@link #finish} has settled the attempt this does nothing: its connection may already serve another exchange.
     */
    void abort() {
        if (!PHASE.compareAndSet(this, LIVE, ABORTED) && !PHASE.compareAndSet(this, DRAINING, ABORTED)) {
            return;
        }
        UpstreamCodec c = codec;
        if (c != null) {
            c.abort();
        }
    }

    /**
     * The client cancelled the request (its connection's reader thread; must not block). An HTTP/1.1 origin whose
     * answer is awaited with the whole request sent is let answer, within {@link DrainAfterCancel}'s bounds, so that
     * the owner reads that answer, drops it and keeps the connection ({@link #drainAfterCancel}); otherwise this is
     * {@link #abort()}. Idempotent (a reset racing the cancel's registration runs it twice).
     */
    void clientCancelled() {
        if (phase == DRAINING) {
            return; // the second run of one cancel
        }
        UpstreamCodec c = codec;
        if (c == null || !c.drainsAfterCancel() || !awaitingHead
                || !pool.state().tryStartDrain(DrainAfterCancel.maxDrains(pool.settings().maxConnections()))) {
            abort();
            return;
        }
        Deadline d = Watchdog.shared().deadline(this::abort);
        d.armAfter(DrainAfterCancel.MAX_WAIT.toNanos());
        if (!DRAIN.compareAndSet(this, null, d)) { // the other run of this cancel is at it
            d.close();
            pool.state().drainEnded();
            return;
        }
        if (!PHASE.compareAndSet(this, LIVE, DRAINING)) { // settled or aborted meanwhile
            endDrain();
            abort();
            return;
        }
        // The owner clears awaitingHead after the head, then reads the phase: if it had already looked, nobody
        // drains, so the connection goes as before (both may act: a drain that finds its socket closed discards).
        if (!awaitingHead) {
            abort();
        }
    }

    /** Whether the client's cancel turned this attempt into a drain, which the owner does next. */
    boolean draining() {
        return phase == DRAINING;
    }

    /**
     * The owner, after the final head of a {@link #draining()} attempt: reads and drops the answer's body within
     * {@link DrainAfterCancel}'s bounds and gives the connection back to the pool when it ended cleanly (discards it
     * otherwise). The exchange then fails as a cancelled one does.
     */
    void drainAfterCancel(ResponseHead head, BodyFraming framing) {
        boolean clean = false;
        if (DrainAfterCancel.keepable(head, framing)) {
            try {
                // each read within the drain's whole wait; the drain's deadline ends it sooner
                clean = DrainAfterCancel.skip(codec.openBody(framing, pool.settings().limits(),
                        DrainAfterCancel.MAX_WAIT));
            } catch (IOException e) {
                clean = false; // closed by the drain's deadline, or the origin failed: discarded below
            }
        }
        settle(clean, DRAINING); // an unclean drain settles too: its connection is discarded, as after an abort
    }

    /**
     * The owner, after the client got an answer without the origin's body (see ProxyHandler's bodyDropped): reads
     * and drops that body within {@link DrainAfterCancel}'s bounds ({@link DrainAfterCancel#MAX_BODY} bytes,
     * {@link DrainAfterCancel#MAX_WAIT} in all, the deadline aborting the attempt) and returns whether it ended
     * cleanly within them. A body known to be larger, one that ends only with the connection, or an origin that
     * closes is not read at all: false, and {@link #finish} then discards the connection (HTTP/1.1: closed, never
     * pooled with bytes of this body unread; HTTP/2: the stream reset, so its window and the connection's are not
     * left holding the rest).
     */
    boolean dropBody(BodyInputStream body, BodyFraming framing, boolean originKeepsAlive) {
        if (!originKeepsAlive || framing instanceof BodyFraming.UntilClose
                || framing instanceof BodyFraming.Fixed f && f.length() > DrainAfterCancel.MAX_BODY) {
            return false;
        }
        Deadline d = Watchdog.shared().deadline(this::abort);
        d.armAfter(DrainAfterCancel.MAX_WAIT.toNanos());
        try {
            return DrainAfterCancel.skip(body);
        } catch (IOException e) {
            return false; // aborted by the deadline, or the origin failed: discarded by finish
        } finally {
            d.close();
        }
    }

    /** Stops the drain's deadline and counts the drain out; once per drain (the deadline is taken). */
    private void endDrain() {
        Deadline d = (Deadline) DRAIN.getAndSet(this, (Deadline) null);
        if (d != null) {
            d.close();
            pool.state().drainEnded();
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
        UpstreamCodec c = codec;
        return "attempt " + number + " to " + endpoint() + (c == null ? "" : c.label())
                + (reused() ? " (reused connection)" : "");
    }

    /** Whether the answer comes over HTTP/2 (the lease was a stream on an HTTP/2 connection). */
    boolean overHttp2() {
        return codec instanceof Http2Codec;
    }
}
