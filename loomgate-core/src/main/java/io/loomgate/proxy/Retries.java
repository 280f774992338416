package io.loomgate.proxy;

import io.loomgate.http1.BodyFraming;
import io.loomgate.http1.BodyInputStream;
import io.loomgate.proxy.ProxyFailure.Kind;
import io.loomgate.resilience.CircuitBreakerPolicy;
import io.loomgate.resilience.RouteRetry;
import io.loomgate.resilience.RetryPolicy;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One exchange's retry state: the route's {@code Retry} policy and budget, the request body kept for replay and the
 * retries spent. Decides, after an attempt failed or answered with a retried status, whether another attempt follows;
 * the proxy then asks its balancer for an endpoint not tried yet. Never consulted once a response head went to the
 * client: a relayed response is final. The deadline all tries share (the route's timeout, counted from the first try)
 * is the caller's, passed to the methods that need it.
 *
 * <p>Without a {@code Retry} filter the retries are the one for a stale keep-alive connection and the one for an
 * HTTP/2 stream the origin refused ({@link FailureClassifier#mayRetry}). They need no state here, so every exchange
 * on such a route gets the shared {@link #NONE} (it was 56 B of every W8 request's allocation when each exchange made
 * its own; 42-69 B of every request with a body until session 57 moved the one thing it held, the copy below, onto
 * the exchange). The copy of a body while it streams on an HTTP/2 attempt, at most {@link #REFUSED_STREAM_COPY}
 * bytes, is the exchange's {@code refusedStreamCopy}: an origin that refuses the stream (REFUSED_STREAM, or a GOAWAY
 * below it) processed none of it (RFC 9113 §8.7), so the request goes again on a fresh connection with the copy, then the rest
 * of the client's body; a refusal after more than that went by is a 502 as before (session 56; the cost in
 * docs/journal/2026-12-01-s56-h2client.md). Owned by the request's thread.
 */
final class Retries {
    private static final Logger log = LoggerFactory.getLogger(Retries.class);
    /**
     * A route without a {@code Retry} policy: no policy, budget, replay copy or count, so nothing any exchange writes;
     * every method below answers from the null policy and replay (spendRetry, the only writer, is never reached) and
     * the exchange's refused stream's copy, if any.
     */
    static final Retries NONE = new Retries(null, null, null, 0);
    /**
     * The most of a request body kept for a refused HTTP/2 stream without a {@code Retry} policy: the default initial
     * stream window (RFC 9113 §6.9.2), what an origin that keeps the default can have taken before it refused. An
     * origin that grants more may refuse a stream past it: that one is not retried (the copy was dropped).
     */
    static final int REFUSED_STREAM_COPY = 65_535;

    private final RouteRetry retry;
    private final RetryPolicy policy;
    private final ReplayableBody replay;
    private final ExchangeListener listener;
    /** SCG's {@code timeout}: no retry starts after this (System.nanoTime()); the route's deadline without one. */
    private final long lastRetryNanos;
    private int retried;
    /** Whether {@link #takeBodyForRetry} already started the next attempt's pass. */
    private boolean rewound;

    private Retries(RouteRetry retry, ReplayableBody replay, ExchangeListener listener, long lastRetryNanos) {
        this.retry = retry;
        this.policy = retry == null ? null : retry.policy();
        this.replay = replay;
        this.listener = listener;
        this.lastRetryNanos = lastRetryNanos;
    }

    /**
     * The retry state of exchange {@code x}, whose tries share the deadline {@code deadlineNanos} (System.nanoTime())
     * counted from {@code startNanos}: {@link #NONE} for a route without a policy.
     */
    static Retries start(Exchange x, RouteRetry retry, ExchangeListener listener, long startNanos,
                         long deadlineNanos) {
        if (retry == null) {
            return NONE; // a refused stream's copy, if one is made, is the exchange's (refusalCopy)
        }
        retry.budget().requestStarted();
        ReplayableBody replay = null;
        // a cached body (CacheRequestBody) is whole already: each attempt reads it afresh, whatever its size
        if (!x.bodyCached() && !(x.requestFraming() instanceof BodyFraming.None)) {
            replay = new ReplayableBody(x.clientBody(), retry.policy().maxReplaySize());
        }
        RetryPolicy policy = retry.policy();
        long lastRetry = policy.timeout() == null ? deadlineNanos
                : Math.min(deadlineNanos, startNanos + policy.timeout().toNanos());
        return new Retries(retry, replay, listener, lastRetry);
    }

    /** The body for attempt {@code number} of {@code x}: the client's, or the replayable copy rewound for a retry. */
    BodyInputStream body(Exchange x, int number) {
        if (replay == null) {
            return policy == null ? refusalCopy(x, number) : x.clientBody();
        }
        if (number > 0 && !rewound) {
            if (replay.rewind() == null) {
                throw new IllegalStateException("the request body outgrew max-replay-size and cannot be sent again");
            }
        }
        rewound = false;
        return replay.current();
    }

    /**
     * Takes the request body away from an attempt whose upload beside is still reading it (the origin answered
     * before the body ended, and that answer is retried): the next attempt's pass starts now, so whatever that upload
     * still reads from the client is kept for it, and the upload's next read fails. False when the body outgrew
     * max-replay-size: then it stays with the attempt, whose answer is final.
     */
    boolean takeBodyForRetry(Exchange x) {
        if (x.bodyCached()) {
            return true; // the next attempt reads its own copy; the upload beside keeps reading its own
        }
        if (replay == null || replay.rewind() == null) {
            return false;
        }
        rewound = true;
        return true;
    }

    /**
     * Without a policy: the body with the copy for a refused stream, made by the first attempt when it is HTTP/2 (only
     * an HTTP/2 origin refuses a stream: an HTTP/1.1 attempt makes none) and the body's declared length, if any, is
     * within the bound; rewound for the retry after a refusal. None for a request without a body or a cached one
     * (CacheRequestBody: whole already, each attempt reads it afresh).
     */
    private static BodyInputStream refusalCopy(Exchange x, int number) {
        RefusedStreamCopy refusalCopy = x.refusedStreamCopy;
        if (refusalCopy == null) {
            if (number > 0 || x.bodyCached() || x.requestFraming() instanceof BodyFraming.None) {
                return x.clientBody();
            }
            long length = x.requestFraming() instanceof BodyFraming.Fixed f ? f.length() : -1;
            // a declared length past the bound would cost 124 KiB of growing arrays, let go at 64 KiB: none is kept
            if (length > REFUSED_STREAM_COPY || !x.upstream.attempt.overHttp2()) {
                return x.clientBody();
            }
            x.refusedStreamCopy = refusalCopy = new RefusedStreamCopy(x.clientBody(), REFUSED_STREAM_COPY, length);
        } else if (number > 0 && !refusalCopy.rewind()) {
            throw new IllegalStateException("the request body outgrew the refused stream's copy");
        }
        return refusalCopy;
    }

    /**
     * Whether a refused stream's body can go again: a cached body, or one whose copy still holds every byte read.
     * Without a copy (none was made, or it was dropped) it cannot.
     */
    boolean refusedBodyReplayable(Exchange x) {
        return x.bodyCached() || replay != null && replay.replayable()
                || x.refusedStreamCopy != null && x.refusedStreamCopy.replayable();
    }

    /**
     * A refused stream whose upload beside still reads the client (session 58): hands the body over to the next
     * attempt at once, without waiting for that upload's read. Under a {@code Retry} policy as
     * {@link #takeBodyForRetry} does for a retried status (the replay copy's lock orders the reads); without one, the
     * refused stream's copy makes its successor ({@link RefusedStreamCopy#handOver}), which the next attempt reads.
     * False when the body cannot go again: no copy was made, it is gone past its bound, or past max-replay-size.
     */
    boolean takeBodyForRefusal(Exchange x, UpstreamAttempt failed, long deadlineNanos) {
        if (policy != null) {
            return takeBodyForRetry(x);
        }
        RefusedStreamCopy copy = x.refusedStreamCopy;
        RefusedStreamCopy next = copy == null ? null : copy.handOver(failed, deadlineNanos);
        if (next == null) {
            return false;
        }
        x.refusedStreamCopy = next;
        return true;
    }

    /**
     * A response head arrived: without a policy nothing retries this exchange any more (a refusal comes before any
     * answer), so the copy made for a refused stream goes now (at the upload's next read) rather than with the
     * exchange.
     */
    static void headArrived(Exchange x) {
        if (x.refusedStreamCopy != null) {
            x.refusedStreamCopy.drop();
        }
    }

    /** Whether the body is still whole for another attempt (none, or within max-replay-size). */
    boolean bodyReplayable() {
        return replay == null || replay.replayable();
    }

    /** The deadline (System.nanoTime()) for getting a connection on this try, within the tries' deadline. */
    long tryDeadline(long deadlineNanos, Duration routeTimeout) {
        long now = System.nanoTime();
        long end = Math.min(deadlineNanos, now + routeTimeout.toNanos());
        if (policy != null && policy.perTryTimeout() != null) {
            end = Math.min(end, now + policy.perTryTimeout().toNanos());
        }
        return end;
    }

    /** How long this try may wait for the response head: the per-try timeout, within what is left of the route's. */
    Duration tryTimeout(long deadlineNanos, Duration routeTimeout) {
        if (policy == null) {
            return routeTimeout;
        }
        long left = Math.max(1, deadlineNanos - System.nanoTime());
        long perTry = policy.perTryTimeout() == null ? left : Math.min(left, policy.perTryTimeout().toNanos());
        return Duration.ofNanos(perTry);
    }

    /**
     * Whether a failure on the origin's side tells against that endpoint for outlier detection: it refused, timed out,
     * reset or answered garbage. A client that went away, or the gateway's own pool being full, does not.
     */
    static boolean countsAgainstEndpoint(ProxyFailure f) {
        return switch (f.kind()) {
            case CONNECT_REFUSED, CONNECT_TIMEOUT, UPSTREAM_TIMEOUT, UPSTREAM_RESET, BAD_RESPONSE -> true;
            default -> false;
        };
    }

    /**
     * After a failed attempt: whether another one follows (it may wait out a back-off first).
     *
     * @throws ProxyFailure of kind {@code circuit_open}: a retry was due, but the route's circuit breaker opened
     *     since this exchange's call began (other calls' failures); the retry is not sent, the exchange gets the
     *     breaker's answer
     */
    boolean mayRetry(Exchange x, ProxyFailure f, UpstreamAttempt.Facts facts) throws ProxyFailure {
        if (FailureClassifier.mayRetry(f, facts, refusedBodyReplayable(x))) {
            // a stale keep-alive connection (first try only), or a refused HTTP/2 stream: never processed, its body
            // (if any) still whole here
            throwIfBreakerOpened(x);
            return true;
        }
        if (policy == null || !countsAgainstEndpoint(f)) {
            return false;
        }
        if (!policy.retriesFailure(f.kind() == Kind.UPSTREAM_TIMEOUT)) {
            return false;
        }
        // A request that never reached the origin may be retried whatever its method; others only if listed. A
        // refused HTTP/2 stream (RST_STREAM REFUSED_STREAM, above a GOAWAY's last stream) was never processed either:
        // one whose body was already streamed goes again here when the body can be replayed.
        if (facts.requestSent() && !FailureClassifier.refused(f) && !policy.retriesMethod(x.request.method())) {
            return false;
        }
        if (!spendRetry(x, facts)) {
            return false;
        }
        throwIfBreakerOpened(x); // after the back-off: the breaker may have opened during it
        retried(x);
        return true;
    }

    /**
     * A retry is due: unless the route's breaker opened since the call began. Then the retry is not sent and the
     * exchange ends with the breaker's answer (503 {@code circuit_open} with {@code Retry-After}, or its fallback),
     * counted {@code loomgate_retries_total{outcome="circuit_open"}} when the route has a {@code Retry}.
     */
    private void throwIfBreakerOpened(Exchange x) throws ProxyFailure {
        ProxyFailure open = breakerOpened(x);
        if (open != null) {
            throw open;
        }
    }

    /** The breaker's refusal, counted, when the route's breaker opened since the call began; else null. */
    private ProxyFailure breakerOpened(Exchange x) {
        CircuitBreakerPolicy breaker = x.route.route().policies().breaker();
        CircuitBreakerPolicy.Refused refused = breaker == null ? null : breaker.refusalNow();
        if (refused == null) {
            return null;
        }
        if (listener != null) { // null: no Retry policy (NONE), whose retries are not counted either
            listener.retry(x, "circuit_open");
        }
        return BreakerCall.refusal(x, refused, " (it opened while this request's retry was due; not sent)");
    }

    /**
     * Whether a failure of the current attempt could still lead to another one (the route retries, this method is
     * retried, retries are left; the budget is asked only when one is spent). Cheap: for deciding whether to spend
     * a wait on making sure the current attempt's answer is whole enough to relay.
     */
    boolean mayTryAgain(Exchange x) {
        return policy != null && retried < policy.retries() && policy.retriesMethod(x.request.method());
    }

    /** Whether a response head with {@code status} is one the policy retries, asking nothing of the budget. */
    boolean wouldRetryStatus(Exchange x, int status) {
        return mayTryAgain(x) && policy.retriesStatus(status);
    }

    /** After a response head with {@code status}: whether to drop it and try again. */
    boolean mayRetryStatus(Exchange x, int status, UpstreamAttempt.Facts facts) {
        if (policy == null || !policy.retriesStatus(status) || !policy.retriesMethod(x.request.method())) {
            return false;
        }
        // The breaker opened meanwhile: the answer in hand is relayed (the breaker judges it by its statusCodes)
        if (!spendRetry(x, facts) || breakerOpened(x) != null) {
            return false;
        }
        retried(x);
        return true;
    }

    /**
     * Whether the policy grants one more retry (count, body, time, budget), its back-off waited out; the caller
     * counts it {@code retried} once the breaker has had its look ({@link #breakerOpened}).
     */
    private boolean spendRetry(Exchange x, UpstreamAttempt.Facts facts) {
        if (retried >= policy.retries()) {
            listener.retry(x, "exhausted");
            return false;
        }
        if (replay != null && facts.hadBody() && !replay.replayable()) {
            log.info("{}: not retried: the request body is larger than max-replay-size ({} bytes)", x,
                    policy.maxReplaySize());
            listener.retry(x, "body_too_large");
            return false;
        }
        Duration wait = policy.waitBefore(retried + 1);
        if (System.nanoTime() + wait.toNanos() >= lastRetryNanos) {
            // no time left in the route's timeout (or the Retry's own timeout) for another try
            listener.retry(x, "exhausted");
            return false;
        }
        if (!retry.budget().tryRetry()) {
            listener.retry(x, "budget_exhausted");
            return false;
        }
        if (!wait.isZero()) {
            try {
                Thread.sleep(wait);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt(); // drain cut this request: no more tries
                return false;
            }
        }
        return true;
    }

    private void retried(Exchange x) {
        retried++;
        listener.retry(x, "retried");
    }
}
