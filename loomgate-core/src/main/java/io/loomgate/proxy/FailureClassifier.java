package io.loomgate.proxy;

import io.loomgate.http1.HttpParseException;
import io.loomgate.http2.Http2StreamException;
import io.loomgate.proxy.ProxyFailure.Kind;
import io.loomgate.upstream.Endpoint;
import io.loomgate.upstream.PoolExhaustedException;
import io.loomgate.upstream.UpstreamTlsException;
import java.io.EOFException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketTimeoutException;
import java.time.Duration;

/**
 * Turns an {@link IOException} into a {@link ProxyFailure}, in one place: the exception's type says what failed,
 * the {@link Stage} says which side's fault that is. Whether the failure may be retried is the kind's
 * {@link ProxyFailure#retryable()} plus the attempt's facts ({@link #mayRetry}).
 */
final class FailureClassifier {

    /** Where in the exchange the exception was thrown. */
    enum Stage {
        /** Checking a connection out of the endpoint's pool (dial or wait). */
        CONNECT,
        /** Sending the request head and body, waiting for the response head; a failed body read is the client's. */
        FORWARD,
        /** Writing to the client before any body: a response head, a local reply, a 101. */
        CLIENT_WRITE,
        /** Relaying the response body: a failed read is the origin's, a failed write the client's. */
        RESPONSE_BODY
    }

    /** Tries of a request whose stream the origin refused (nothing processed): a burst during a GOAWAY may hit two. */
    static final int MAX_REFUSED_RETRIES = 3;

    private FailureClassifier() {
    }

    /** The same, for an exchange: the endpoint of its current attempt and its route's name and timeout. */
    static ProxyFailure of(Exchange x, IOException e, Stage stage) {
        return classify(e, stage, x.upstream.attempt == null ? null : x.upstream.attempt.endpoint(), x.routeId(),
                x.route == null ? null : x.route.route().timeout());
    }

    /**
     * The failure for {@code e}, thrown at {@code stage} while talking to {@code endpoint} for {@code routeId}
     * ({@code headTimeout} is the route's, named when no head came in time). A {@link ProxyFailure} is returned
     * as it is: it was classified already.
     */
    static ProxyFailure classify(IOException e, Stage stage, Endpoint endpoint, String routeId,
                                 Duration headTimeout) {
        if (e instanceof ProxyFailure f) {
            return f;
        }
        String where = "upstream " + endpoint + " (route '" + routeId + "')";
        return switch (stage) {
            case CONNECT -> switch (e) {
                case PoolExhaustedException p -> new ProxyFailure(Kind.POOL_EXHAUSTED, p.getMessage() + " for "
                        + where, e);
                case UpstreamTlsException t -> new ProxyFailure(Kind.UPSTREAM_TLS, "TLS to " + where + " failed: "
                        + e.getMessage(), e);
                case SocketTimeoutException t -> new ProxyFailure(Kind.CONNECT_TIMEOUT, "connecting to " + where
                        + " timed out", e);
                case ConnectException c -> new ProxyFailure(Kind.CONNECT_REFUSED, where + " refused the connection", e);
                case NoRouteToHostException n -> new ProxyFailure(Kind.CONNECT_REFUSED, where
                        + " refused the connection", e);
                default -> new ProxyFailure(Kind.CONNECT_REFUSED, "cannot connect to " + where + ": "
                        + e.getMessage(), e);
            };
            case FORWARD -> switch (e) {
                // A malformed chunked body (RFC 9112 §7.1): the client gets the codec's status, and the half-sent
                // request dies with the discarded upstream connection, never completed there.
                case BodyRelay.ReadFailed r when r.getCause() instanceof HttpParseException bad ->
                        bodyRefused(bad, e);
                case BodyRelay.ReadFailed r when r.getCause() instanceof SocketTimeoutException ->
                        new ProxyFailure(Kind.CLIENT_TIMEOUT, "client stalled while sending the request body: "
                                + e.getMessage(), e);
                case BodyRelay.ReadFailed r -> new ProxyFailure(Kind.CLIENT_ABORTED,
                        "client failed while sending the request body: " + e.getMessage(), e);
                case SocketTimeoutException t -> new ProxyFailure(Kind.UPSTREAM_TIMEOUT, where
                        + " sent no response within " + headTimeout.toMillis() + " ms", e);
                case HttpParseException p -> new ProxyFailure(Kind.BAD_RESPONSE, where + " sent an invalid response: "
                        + e.getMessage(), e);
                case EOFException eof -> new ProxyFailure(Kind.UPSTREAM_RESET, where
                        + " closed the connection before responding", e);
                case Http2StreamException h when h.malformed() -> new ProxyFailure(Kind.BAD_RESPONSE, where
                        + " sent an invalid response: " + e.getMessage(), e);
                case Http2StreamException h when h.refused() -> new ProxyFailure(Kind.UPSTREAM_RESET, where
                        + " refused the stream before processing it: " + e.getMessage(), e);
                default -> new ProxyFailure(Kind.UPSTREAM_RESET, where + " failed: " + e.getMessage(), e);
            };
            case CLIENT_WRITE -> new ProxyFailure(Kind.CLIENT_ABORTED, "client went away before the response head: "
                    + e, e);
            case RESPONSE_BODY -> e instanceof BodyRelay.ReadFailed
                    ? new ProxyFailure(Kind.UPSTREAM_ABORTED, "upstream " + endpoint + " failed mid-body: "
                            + e.getMessage(), e)
                    : new ProxyFailure(Kind.CLIENT_ABORTED, "client went away mid-body: " + e.getMessage(), e);
        };
    }

    /** Whether {@code failure} is an HTTP/2 stream the origin never processed (RFC 9113 §8.7). */
    static boolean refused(ProxyFailure failure) {
        return failure.getCause() instanceof Http2StreamException h && h.refused();
    }

    /**
     * Whether the exchange may try again on a fresh connection after {@code failure} ended this attempt: the kind
     * must allow it (a reset, never a timeout or an invalid response), nothing of a response may have arrived, and
     * the failure must look like a stale keep-alive connection (a reused one) on an idempotent request without a
     * body (nothing to replay). One retry per exchange, for now: the resilience work adds a budget, other endpoints
     * and body replay.
     */
    static boolean mayRetry(ProxyFailure failure, UpstreamAttempt.Facts attempt) {
        return mayRetry(failure, attempt, false);
    }

    /**
     * As {@link #mayRetry(ProxyFailure, UpstreamAttempt.Facts)}; {@code bodyReplayable}: the request's body, if the
     * attempt sent one, can be sent whole again (a copy kept, or a cached body), so a refused stream with a body may
     * go again too.
     */
    static boolean mayRetry(ProxyFailure failure, UpstreamAttempt.Facts attempt, boolean bodyReplayable) {
        if (refused(failure)) {
            // REFUSED_STREAM, or above a GOAWAY's last stream id: the origin processed nothing (RFC 9113 §8.7), so
            // any method may go again; only a body consumed and not kept cannot.
            return attempt.number() < MAX_REFUSED_RETRIES && !attempt.responseStarted()
                    && (!attempt.hadBody() || bodyReplayable);
        }
        return failure.retryable()
                && attempt.number() == 0
                && attempt.reused()
                && !attempt.responseStarted()
                && attempt.idempotent()
                && !attempt.hadBody();
    }

    /**
     * A request body the codec or a cap refused while it was read: 413 is a body over a route's limit (well formed,
     * too long), anything else a malformed one (the codec's status).
     */
    static ProxyFailure bodyRefused(HttpParseException bad, IOException e) {
        return bad.status() == 413
                ? new ProxyFailure(Kind.BODY_TOO_LARGE, 413, bad.getMessage(), e)
                : new ProxyFailure(Kind.BAD_REQUEST, bad.status(), "malformed request body: " + bad.getMessage(), e);
    }
}
