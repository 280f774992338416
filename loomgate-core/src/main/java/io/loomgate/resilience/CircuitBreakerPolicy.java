package io.loomgate.resilience;

import io.loomgate.http.ResponseHead;
import java.io.IOException;
import java.time.Duration;
import java.util.Set;
import java.util.TreeSet;

/**
 * A route's {@code CircuitBreaker}, bound to the route when it is built and run by the proxy around the route's
 * filters and upstream attempts ({@link #guard}). Closed while the upstream mostly answers; open (every request
 * answered at once, never reaching the upstream) once the failure or slow-call rate over the sliding window passes its
 * threshold; half-open after {@code wait-in-open} to let a few calls test it. A failure is an upstream failure (the
 * proxy's refusal, reset or timeout) or a response whose status is listed in {@code statusCodes}; an answer a filter
 * gave before the upstream counts neither way.
 *
 * <p>What the client gets is returned as a value, an {@link Outcome}, as Spring Cloud Gateway decides it: with a
 * {@code fallbackUri}, every failure (open, upstream failure, listed status) goes to the fallback route; without one,
 * open is 503 with {@code Retry-After}, a listed status is relayed as the origin sent it, and an upstream failure
 * stays the proxy's answer (502, 504), except that with {@code resumeWithoutError} a failure other than a timeout
 * is answered 200 with no body.
 */
public final class CircuitBreakerPolicy {
    /**
     * The exchange attribute under which the proxy leaves the failure that sent a request to its fallback route, for
     * {@code FallbackHeaders} (SCG's {@code CIRCUITBREAKER_EXECUTION_EXCEPTION_ATTR}).
     */
    public static final String EXECUTION_EXCEPTION = "loomgate.circuitBreaker.executionException";

    private final Breaker breaker;
    private final Set<Integer> failureStatuses;
    private final String fallbackPath;
    private final boolean resumeWithoutError;
    private final Duration waitInOpen;

    CircuitBreakerPolicy(Breaker breaker, Set<Integer> failureStatuses, String fallbackPath,
                         boolean resumeWithoutError, Duration waitInOpen) {
        this.breaker = breaker;
        this.failureStatuses = Set.copyOf(failureStatuses);
        this.fallbackPath = fallbackPath;
        this.resumeWithoutError = resumeWithoutError;
        this.waitInOpen = waitInOpen;
    }

    /** The breaker itself: what {@link KeptPolicies} keeps across reloads. */
    Breaker breaker() {
        return breaker;
    }

    /** What the breaker guards: the route's filters and upstream attempts for one exchange, run by the proxy. */
    public interface Call {
        /** Answered by a filter before the upstream: counts neither as success nor as failure. */
        int LOCAL_REPLY = -1;

        /** Runs the route's filters and attempts; the response status, or {@link #LOCAL_REPLY}. */
        int run() throws IOException;

        /** Whether a failure of this call means no response in time (SCG's TimeoutException: 504 whatever else). */
        boolean timedOut(IOException failure);

        /** Whether the request can still go to a fallback route after the call failed (its body not consumed). */
        boolean resendable();

        /**
         * Whether the call failed because the breaker opened while it ran, before a retry of its upstream try
         * ({@link #refusalNow}): then, like a call refused at its start, it gets the fallback with the breaker's
         * open failure, or the 503, never {@code resumeWithoutError}'s 200.
         */
        boolean stoppedByOpenBreaker(IOException failure);
    }

    /** What the guarded call came to. */
    public sealed interface Outcome {
    }

    /** The call's own answer stands (a response to relay, a filter's reply). */
    public record Proceeded() implements Outcome {
    }

    /** The breaker answers: {@code resumeWithoutError}'s empty 200. */
    public record Reply(ResponseHead head, byte[] body) implements Outcome {
    }

    /**
     * The breaker refused the call (open, or half-open with its trial calls taken) and there is no fallback: the
     * proxy answers 503 as a failure of kind {@code circuit_open}, with {@code Retry-After} of these seconds, so the
     * access log and the metrics say whose 503 it was.
     */
    public record Refused(String breaker, long retryAfterSeconds) implements Outcome {
    }

    /** The request goes to the route matching {@code path} (query kept), with the failure that sent it there. */
    public record Fallback(String path, Throwable cause) implements Outcome {
    }

    private static final Proceeded PROCEEDED = new Proceeded();

    /**
     * Runs {@code call} if the breaker lets it, records how it went and says what the client gets.
     *
     * @throws IOException the call's failure, when neither a fallback nor {@code resumeWithoutError} answers it
     */
    public Outcome guard(Call call) throws IOException {
        if (!breaker.tryAcquirePermission()) {
            return fallbackPath != null ? new Fallback(fallbackPath, breaker.openFailure()) : refused();
        }
        long start = System.nanoTime();
        int status;
        try {
            status = call.run();
        } catch (IOException e) {
            breaker.onError(System.nanoTime() - start, e); // its try failed: one error, whatever stopped its retry
            boolean open = call.stoppedByOpenBreaker(e);
            if (fallbackPath != null && call.resendable()) {
                return new Fallback(fallbackPath, open ? breaker.openFailure() : e);
            }
            if (resumeWithoutError && !open && !call.timedOut(e)) {
                return new Reply(ResponseHead.of(200), new byte[0]);
            }
            throw e;
        } catch (RuntimeException e) { // a filter's bug: counted, and answered by the proxy as one
            breaker.onError(System.nanoTime() - start, e);
            throw e;
        }
        long took = System.nanoTime() - start;
        if (status == Call.LOCAL_REPLY) {
            breaker.releasePermission();
            return PROCEEDED;
        }
        if (failureStatuses.contains(status)) {
            StatusFailure failure = new StatusFailure(status);
            breaker.onError(took, failure);
            return fallbackPath != null && call.resendable() ? new Fallback(fallbackPath, failure) : PROCEEDED;
        }
        breaker.onSuccess(took);
        return PROCEEDED;
    }

    /**
     * The refusal a new call would get now, asked without taking a permit; null while the breaker lets calls through.
     * For a call under way that is about to retry its upstream try: other calls' failures may have opened the breaker
     * since this one took its permit, and a retry sent then would reach the upstream the breaker keeps everyone else
     * from (session 61).
     */
    public Refused refusalNow() {
        return breaker.refusesCalls() ? refused() : null;
    }

    private Refused refused() {
        return new Refused(breaker.name(), Math.max(1, (waitInOpen.toMillis() + 999) / 1000));
    }

    /** The breaker's name (routes naming the same one share it). */
    public String name() {
        return breaker.name();
    }

    /** The breaker's state now, as Resilience4j names it: CLOSED, OPEN, HALF_OPEN (others are never set here). */
    public String state() {
        return breaker.state();
    }

    /** Whether it sends failures to a fallback route. */
    public boolean hasFallback() {
        return fallbackPath != null;
    }

    @Override
    public String toString() {
        return "CircuitBreaker[" + breaker.name() + ", " + breaker.state() + ", statusCodes="
                + new TreeSet<>(failureStatuses)
                + (fallbackPath == null ? "" : ", fallback=" + fallbackPath)
                + (resumeWithoutError ? ", resumeWithoutError" : "") + "]";
    }

    /**
     * A response the route counts as a failure (SCG's {@code CircuitBreakerStatusCodeException}): recorded by the
     * breaker and handed to a fallback route, never thrown.
     */
    static final class StatusFailure extends Exception {
        StatusFailure(int status) {
            super(status + " " + io.loomgate.http.Status.reason(status), null, false, false);
        }
    }
}
