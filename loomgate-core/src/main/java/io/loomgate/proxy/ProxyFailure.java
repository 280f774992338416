package io.loomgate.proxy;

import io.loomgate.threads.Unexpected;
import java.io.IOException;
import org.slf4j.Logger;

/**
 * A failure of one exchange, as a decision: where it happened, what the client is told, whether the client
 * connection may be kept, whether the request may be tried again upstream, and how loudly to log it. The kinds are a
 * closed set (an enum is the smallest sealed hierarchy); {@link LocalReplies} turns them into responses.
 */
public final class ProxyFailure extends IOException {

    /** Which side of the gateway failed. */
    public enum Source { DOWNSTREAM, UPSTREAM, INTERNAL }

    /** The closed set of failures, each with its answer. */
    public enum Kind {
        /**
         * The request cannot be proxied: a malformed chunked body (the codec chose the status), a dot-segment in the
         * path or a target not in origin-form (400), CONNECT (405). Heads that break RFC 9112 never get here: the
         * server refuses them before any handler runs.
         */
        BAD_REQUEST(Source.DOWNSTREAM, 400, false, false),
        /**
         * The request body passed a route's cap while it was read ({@code RequestSize} on a body without a length,
         * {@code CacheRequestBody}'s limit): answered 413 (gRPC {@code RESOURCE_EXHAUSTED}) and the connection closed,
         * the rest of the body unread. A kind of its own, not {@code bad_request}: the body was well formed, only too
         * long, and an operator tells a limit hit from a broken client by it (session 58's hunt).
         */
        BODY_TOO_LARGE(Source.DOWNSTREAM, 413, false, false),
        /** No route matched the request. */
        NO_ROUTE(Source.DOWNSTREAM, 404, true, false),
        /** The route's max-in-flight was reached and no slot freed within its queue timeout. */
        OVERLOADED(Source.INTERNAL, 503, true, false),
        /**
         * The route's circuit breaker is open (or half-open with its trial calls taken): answered 503 with
         * {@code Retry-After} of the breaker's {@code wait-in-open}, the upstream never asked. The breaker's job, so
         * routine (debug, not warn, for every request it holds off); until session 57 such a 503 carried no kind.
         */
        CIRCUIT_OPEN(Source.INTERNAL, 503, true, false),
        /**
         * The request came through a Loomgate {@code RequestScreen.MAX_OWN_HOPS} times already (its {@code Via}): the
         * route's origin leads back to a gateway, a configuration mistake. Answered 508 Loop Detected before any
         * filter or upstream; logged at warn, once per looping request (the passes before relay the 508).
         */
        LOOP_DETECTED(Source.INTERNAL, 508, true, false),
        /** The upstream refused the connection or was unreachable. */
        CONNECT_REFUSED(Source.UPSTREAM, 502, true, false),
        /** The TLS handshake with the upstream failed (expired, unknown CA, name mismatch): logged once per cause. */
        UPSTREAM_TLS(Source.UPSTREAM, 502, true, false),
        /** Connecting to the upstream took longer than the connect timeout. */
        CONNECT_TIMEOUT(Source.UPSTREAM, 502, true, false),
        /** Every connection slot to the endpoint stayed busy until the deadline. */
        POOL_EXHAUSTED(Source.UPSTREAM, 503, true, false),
        /** No response head arrived within the route's timeout. */
        UPSTREAM_TIMEOUT(Source.UPSTREAM, 504, true, false),
        /**
         * The upstream closed or reset the connection before a complete response head. The one retryable kind: on a
         * reused connection it is usually a keep-alive the origin closed as the request went out.
         */
        UPSTREAM_RESET(Source.UPSTREAM, 502, true, true),
        /** The upstream sent a response head that breaks RFC 9112. */
        BAD_RESPONSE(Source.UPSTREAM, 502, true, false),
        /** The upstream failed after the response head was sent on: the client connection is aborted. */
        UPSTREAM_ABORTED(Source.UPSTREAM, 502, false, false),
        /**
         * A gRPC call's deadline ({@code grpc-timeout}, counted from when its head was read) passed before it ended:
         * the upstream attempt was cancelled. The client chose the deadline, so this is routine, not the origin's
         * fault (it does not count against the endpoint). Answered {@code DEADLINE_EXCEEDED}; 504 is only what the
         * metrics' status class would say if no gRPC answer could be sent.
         */
        DEADLINE_EXCEEDED(Source.DOWNSTREAM, 504, true, false),
        /**
         * The client went away while we were proxying (or stalled once the response had started). Its 400, as
         * {@code DRAIN_CUT}'s 503, is never sent: an exchange so ended before a head is status 0, logged 499 and
         * counted {@code none} (session 60; {@code ProxyHandler.end}).
         */
        CLIENT_ABORTED(Source.DOWNSTREAM, 400, false, false),
        /**
         * The client stopped sending its request body for longer than {@code read-timeout}: answered 408 and the
         * connection closed, as a stalled head is, when no response has started (the client is still there to read
         * it; RFC 9110 §15.5.9).
         */
        CLIENT_TIMEOUT(Source.DOWNSTREAM, 408, false, false),
        /**
         * The gateway cut the exchange itself: it was still running when a drain (SIGTERM, {@code drain-timeout})
         * ended and closed its client connection. Not the client's doing, though the relay sees a failed client write
         * as a client's would look (session 55's hunt found drain cuts counted as {@code client_aborted}). Nobody is
         * left to answer.
         */
        DRAIN_CUT(Source.INTERNAL, 503, false, false),
        /** A bug or an unexpected state in the gateway. */
        INTERNAL(Source.INTERNAL, 500, false, false);

        private final Source source;
        private final int status;
        private final boolean keepClient;
        private final boolean retryable;

        Kind(Source source, int status, boolean keepClient, boolean retryable) {
            this.source = source;
            this.status = status;
            this.keepClient = keepClient;
            this.retryable = retryable;
        }

        public Source source() {
            return source;
        }

        public int status() {
            return status;
        }

        /**
         * Whether a failure of this kind carries the stack trace of where it was made: a bug ({@code INTERNAL}) and
         * the upstream kinds (a classification of another exception, logged at warn, where a wrong one could hide)
         * do; the gateway's own routine answers and a client's doings (a refusal, a 404, an open breaker, a client
         * gone or too slow, a drain's cut) do not: their place is the kind itself, and a cause they wrap keeps its
         * own trace. Netty's and Envoy's routine errors are made the same way, without a trace.
         */
        boolean traced() {
            return source == Source.UPSTREAM || this == INTERNAL;
        }
    }

    private final Kind kind;
    private final int status;
    /** The {@code Retry-After} of a {@code CIRCUIT_OPEN} answer, in seconds; 0 for every other failure. */
    private final long retryAfterSeconds;

    public ProxyFailure(Kind kind, String message, Throwable cause) {
        this(kind, kind.status, message, cause);
    }

    public ProxyFailure(Kind kind, int status, String message, Throwable cause) {
        this(kind, status, message, cause, 0);
    }

    private ProxyFailure(Kind kind, int status, String message, Throwable cause, long retryAfterSeconds) {
        super(message, cause); // no stack trace yet: fillInStackTrace below skips it while kind is unset
        this.kind = kind;
        this.status = status;
        this.retryAfterSeconds = retryAfterSeconds;
        if (kind.traced()) {
            super.fillInStackTrace(); // the JVM leaves out this constructor's frames, as it does in Throwable's
        }
    }

    /**
     * Fills the stack trace only when the constructor asks for it ({@link Kind#traced}): Throwable's constructor
     * calls this before {@code kind} is set, and a routine refusal (an open breaker's 503 to every request, a 404, a
     * client gone) would otherwise walk the stack and keep its frames for every refused request, for a trace nobody
     * logs. IOException has no constructor with Throwable's {@code writableStackTrace}, hence the override.
     */
    @Override
    public synchronized Throwable fillInStackTrace() { // the lock is the new object's: uncontended, no I/O under it
        return kind == null ? this : super.fillInStackTrace();
    }

    /** A circuit breaker's refusal: its client is told to come back after {@code retryAfterSeconds}. */
    public static ProxyFailure circuitOpen(String message, long retryAfterSeconds) {
        return new ProxyFailure(Kind.CIRCUIT_OPEN, Kind.CIRCUIT_OPEN.status, message, null, retryAfterSeconds);
    }

    /** The {@code Retry-After} seconds of a {@code CIRCUIT_OPEN} answer; 0 for other kinds. */
    public long retryAfterSeconds() {
        return retryAfterSeconds;
    }

    public Kind kind() {
        return kind;
    }

    public Source source() {
        return kind.source;
    }

    /** The status the client gets, if a response can still be sent. */
    public int status() {
        return status;
    }

    /** Whether the client connection may serve another request after the error reply. */
    public boolean keepClientConnection() {
        return kind.keepClient;
    }

    /**
     * Whether this kind of failure allows sending the request again at all. The attempt's facts (reused connection,
     * nothing of a response received, idempotent, no body to replay) decide the rest: see
     * {@code FailureClassifier.mayRetry}.
     */
    public boolean retryable() {
        return kind.retryable;
    }

    /**
     * Whether the client connection is gone, so no answer can be sent: the client left ({@code CLIENT_ABORTED}) or the
     * drain closed it ({@code DRAIN_CUT}).
     */
    public boolean clientGone() {
        return kind == Kind.CLIENT_ABORTED || kind == Kind.DRAIN_CUT;
    }

    /**
     * Client hang-ups and routing misses are routine (debug); upstream trouble is worth a warning; bugs an error. A
     * drain's cuts too: the drain warns once with their count.
     */
    public boolean isRoutine() {
        return kind == Kind.CLIENT_ABORTED || kind == Kind.DRAIN_CUT || kind == Kind.CLIENT_TIMEOUT
                || kind == Kind.NO_ROUTE || kind == Kind.BAD_REQUEST || kind == Kind.BODY_TOO_LARGE
                || kind == Kind.DEADLINE_EXCEEDED || kind == Kind.CIRCUIT_OPEN
                || kind == Kind.UPSTREAM_TLS; // the connector logged its cause once at warn; every request is noise
    }

    /**
     * Logs this failure of {@code exchange} at its level; called once per failed exchange. {@code sent} is what the
     * client already has when the failure cut a response under way (its status and the body bytes it got), null when
     * the client is answered with this failure's own status: the line names what the client saw, never a 502 it
     * did not get (the access log's status is that response's).
     */
    void logOnce(Logger log, Object exchange, String sent) {
        Object said = sent == null ? status : sent;
        if (isRoutine()) {
            log.debug("{}: {} {}", exchange, said, getMessage());
        } else if (kind == Kind.INTERNAL) {
            Unexpected.LOG.error("{}: {}", exchange, getMessage(), this); // a bug: see Unexpected
        } else {
            log.warn("{}: {} {}", exchange, said, getMessage());
        }
    }
}
