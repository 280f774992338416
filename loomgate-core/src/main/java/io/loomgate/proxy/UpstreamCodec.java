package io.loomgate.proxy;

import io.loomgate.http.GeneratedField;
import io.loomgate.http.HttpLimits;
import io.loomgate.http.RequestHead;
import io.loomgate.http.ResponseHead;
import io.loomgate.http1.BodyFraming;
import io.loomgate.http1.BodyInputStream;
import io.loomgate.upstream.ConnectionLease;
import io.loomgate.upstream.Endpoint;
import io.loomgate.upstream.Http2Pool;
import io.loomgate.upstream.PooledConnection;
import io.loomgate.upstream.UpstreamPool;
import java.io.IOException;
import java.time.Duration;

/**
 * What one upstream protocol does for an {@link UpstreamAttempt}, on the lease the pool handed out: an HTTP/1.1
 * connection ({@link Http1Codec}) or a stream slot on an HTTP/2 connection ({@link Http2Codec}). The attempt
 * keeps what is the same for both (the facts a retry reads, the interim-head cap, the abort's once-only rule and
 * the request body's relay beside, {@link RequestUpload}); a codec only moves bytes in its protocol's framing.
 * Model: OkHttp's {@code ExchangeCodec}.
 *
 * <p>Phases, on the request's thread: {@code sendHead → relayBody → readHead (once per head) → openBody →
 * finish}; {@link #abort()} from any thread, {@link #stopOrigin()} from the relay's.
 */
interface UpstreamCodec {

    /** Reads the origin's answer that came while the body was being sent (HTTP/1.1): null after an interim one. */
    @FunctionalInterface
    interface EarlyHead {
        ResponseHead read() throws IOException;
    }

    /**
     * The codec for what the pool lent to {@code attempt}, whose {@link UpstreamAttempt#abort} the HTTP/1.1 codec's
     * {@link #stopOrigin} calls (the attempt itself, not a method reference: one object fewer per attempt).
     */
    static UpstreamCodec of(ConnectionLease lease, UpstreamPool pool, UpstreamAttempt attempt) {
        // instanceof, not a pattern switch: JDK 25's AOT cache does not hold its bootstrap, which
        // spun a class before the first answer (docs/architecture.md, "Start-up")
        if (lease instanceof PooledConnection c) {
            return new Http1Codec(c, pool, attempt);
        }
        return new Http2Codec((Http2Pool.Lease) lease, pool.endpoint()); // the other permitted lease
    }

    /** The Host (HTTP/2: {@code :authority}) that names the endpoint: its port only when not the scheme's default. */
    static String hostOf(Endpoint endpoint) {
        return endpoint.port() == endpoint.defaultPort() ? endpoint.host() : endpoint.authority();
    }

    /** Whether the connection served an earlier exchange. */
    boolean reused();

    /**
     * Writes the request head (HTTP/2: opens the stream with it): Host (or {@code :authority}) is the endpoint's
     * unless the route preserves the client's, the framing fields are the ones this side will use, and
     * {@code generated} (if not null) follows the request's own fields. Returns whether a request body follows.
     */
    boolean sendHead(RequestHead request, BodyFraming framing, boolean preserveHost, GeneratedField generated)
            throws IOException;

    /**
     * Sends a request body ({@code framing} is not {@code None}) on this thread or starts it on {@code upload}'s
     * thread beside; returns the bytes sent here (0 for a relay beside).
     */
    long relayBody(BodyInputStream body, BodyFraming framing, Duration timeout, RequestUpload upload,
                   EarlyHead early) throws IOException;

    /** The next response head, interim or final, within {@code timeout} and before {@code deadlineNanos}. */
    ResponseHead readHead(Duration timeout, long deadlineNanos) throws IOException;

    /** What to report for a failed wait for the head: the client's failure if it caused it, else {@code e}. */
    IOException explainHeadFailure(IOException e, RequestUpload upload);

    /** The response body's framing, given the one the head's fields say. */
    BodyFraming responseFraming(BodyFraming fromHead);

    /** Fails as a reset when the origin closes between its head and its body (see UpstreamAttempt). */
    void awaitBodyStart(BodyFraming framing, int graceMillis) throws IOException;

    /** The response body in the origin's framing; each read waits at most {@code readTimeout}. */
    BodyInputStream openBody(BodyFraming framing, HttpLimits limits, Duration readTimeout);

    /** Whether the origin has sent bytes not read yet (after a failed upload: maybe its early answer). */
    boolean hasResponseBytes();

    /** The raw connection, for the byte pipes after a 101 (HTTP/1.1 only; null over HTTP/2). */
    PooledConnection connection();

    /** Gives the lease back: clean and reusable, or thrown away (the connection discarded, the stream reset). */
    void finish(boolean reusable);

    /** Ends the origin's side from the relay's thread: its next write fails (HTTP/2 resets, HTTP/1.1 aborts). */
    void stopOrigin();

    /** Ends the origin's side from any thread without blocking; the attempt calls it at most once. */
    void abort();

    /**
     * Whether a client's cancel while the head is awaited may let the answer come and be read to keep the
     * connection ({@link DrainAfterCancel}) rather than {@link #abort()}: HTTP/1.1, whose abort costs a connection;
     * an HTTP/2 stream's reset costs nothing.
     */
    default boolean drainsAfterCancel() {
        return false;
    }

    /** What the attempt's name adds for this lease: {@code " (h2 <stream>)"} for a stream, "" for a connection. */
    String label();
}
