package io.loomgate.resilience;

import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.loomgate.filter.FilterChain;
import io.loomgate.filter.FilterExchange;
import io.loomgate.filter.GatewayFilter;
import io.loomgate.http.ResponseHead;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Spring Cloud Gateway's {@code CircuitBreaker} filter on a Resilience4j breaker: closed while the upstream mostly
 * answers, open (every request answered at once, never reaching the upstream) once the failure or slow-call rate over
 * the sliding window passes its threshold, half-open after {@code wait-in-open} to let a few calls test it. A failure
 * is an upstream failure (the proxy's refusal, reset or timeout) or a response whose status is listed in
 * {@code statusCodes}. While open the answer is the fallback route ({@code forward:/path}) or 503 with
 * {@code Retry-After}.
 *
 * <p>Resilience4j's breaker is lock-free on its state (an AtomicReference) and, from 2.3.0, guards its sliding window
 * with a ReentrantLock instead of {@code synchronized}, so it neither blocks nor pins a virtual thread.
 */
public final class CircuitBreakerFilter implements GatewayFilter {
    private final CircuitBreaker breaker;
    private final Set<Integer> failureStatuses;
    private final String fallbackPath;
    private final Duration waitInOpen;

    CircuitBreakerFilter(CircuitBreaker breaker, Set<Integer> failureStatuses, String fallbackPath,
                         Duration waitInOpen) {
        this.breaker = breaker;
        this.failureStatuses = Set.copyOf(failureStatuses);
        this.fallbackPath = fallbackPath;
        this.waitInOpen = waitInOpen;
    }

    /** The breaker, for its state and metrics. */
    public CircuitBreaker breaker() {
        return breaker;
    }

    @Override
    public void filter(FilterExchange exchange, FilterChain chain) throws IOException {
        if (!breaker.tryAcquirePermission()) {
            answerWhileOpen(exchange);
            return;
        }
        long start = System.nanoTime();
        try {
            chain.proceed(exchange);
        } catch (IOException | RuntimeException e) {
            breaker.onError(System.nanoTime() - start, TimeUnit.NANOSECONDS, e);
            throw e;
        }
        long took = System.nanoTime() - start;
        ResponseHead response = exchange.response();
        if (response != null && failureStatuses.contains(response.status())) {
            breaker.onError(took, TimeUnit.NANOSECONDS, new StatusFailure(response.status()));
        } else {
            breaker.onSuccess(took, TimeUnit.NANOSECONDS);
        }
    }

    private void answerWhileOpen(FilterExchange exchange) {
        if (fallbackPath != null) {
            throw new FallbackForward(fallbackPath);
        }
        ResponseHead head = ResponseHead.of(503);
        head.headers().set("Retry-After", Long.toString(Math.max(1, (waitInOpen.toMillis() + 999) / 1000)));
        head.headers().set("Content-Type", "text/plain; charset=utf-8");
        // The breaker's and the route's names are the operator's (the metrics and /routes show them), not the client's.
        exchange.replyLocally(head, ("503 Service Unavailable: the upstream is failing and its circuit breaker is "
                + "open; retry later\n").getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public String toString() {
        return "CircuitBreaker[" + breaker.getName() + ", " + breaker.getState() + "]";
    }

    /** A response the route counts as a failure: recorded by the breaker, never thrown to anyone. */
    static final class StatusFailure extends Exception {
        StatusFailure(int status) {
            super("status " + status, null, false, false);
        }
    }
}
