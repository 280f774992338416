package io.loomgate.resilience;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

/**
 * When a route tries again, as Spring Cloud Gateway's {@code Retry} filter says it (same names and defaults), plus
 * what a gateway needs on top: how much request body it keeps for replay, each try's own timeout, and the budget that
 * keeps retries from multiplying the load on an upstream that is already failing.
 *
 * @param retries           tries after the first (default 3)
 * @param statuses          response statuses that are retried (default none)
 * @param series            status classes that are retried, as their first digit (default 5: SERVER_ERROR)
 * @param methods           methods that may be retried after the request reached the origin (default GET); any
 *                          method is retried when it never reached the origin (the connection was refused)
 * @param exceptions        failures that are retried, by the names SCG uses: {@code IOException} (refused, reset,
 *                          invalid response, connect timeout) and {@code TimeoutException} (no response in time)
 * @param backoff           the wait between tries, or null for none (SCG's default)
 * @param maxReplaySize     the largest request body kept for replay (default 64 KiB); a larger one is not retried
 *                          once any of it was sent
 * @param perTryTimeout     each try's limit to the response head, or null for the route's timeout; never beyond it
 * @param budgetPercent     retries may add at most this share to the route's requests over 10 s (default 20)
 * @param minRetriesPerSecond the budget's floor, so a quiet route can still retry (default 3)
 * @param jitter            SCG's {@code jitter.randomFactor}: each back-off drawn at random within ± this share of
 *                          itself, never below {@code firstBackoff} nor above {@code maxBackoff} (reactor's random
 *                          jitter); 0 for none (the default). No effect without a back-off, as in SCG.
 * @param timeout           SCG's {@code timeout}: no retry starts once this long has passed since the first try
 *                          began (a try under way is not cut: {@code per-try-timeout} and the route's timeout bound
 *                          it); null for no bound but the route's timeout (the default)
 */
public record RetryPolicy(int retries, Set<Integer> statuses, Set<Integer> series, Set<String> methods,
                          Set<String> exceptions, Backoff backoff, long maxReplaySize, Duration perTryTimeout,
                          int budgetPercent, int minRetriesPerSecond, double jitter, Duration timeout) {

    public static final RetryPolicy DEFAULTS = new RetryPolicy(3, Set.of(), Set.of(5), Set.of("GET"),
            Set.of("IOException", "TimeoutException"), null, 64 * 1024, null, 20, 3, 0, null);

    public RetryPolicy {
        statuses = Set.copyOf(statuses);
        series = Set.copyOf(series);
        methods = Set.copyOf(methods);
        exceptions = Set.copyOf(exceptions);
    }

    /** The wait before retry number {@code n} (1 for the first): the back-off, jittered; zero without a back-off. */
    public Duration waitBefore(int n) {
        if (backoff == null) {
            return Duration.ZERO;
        }
        long delay = backoff.before(n).toNanos();
        if (jitter == 0) {
            return Duration.ofNanos(delay);
        }
        long offset = (long) (delay * jitter);
        long low = Math.max(backoff.first().toNanos() - delay, -offset);
        long high = Math.min(backoff.max().toNanos() - delay, offset);
        return Duration.ofNanos(delay + (high > low ? ThreadLocalRandom.current().nextLong(low, high + 1) : low));
    }

    /** Whether a response with this status is answered by trying again. */
    public boolean retriesStatus(int status) {
        return statuses.contains(status) || series.contains(status / 100);
    }

    /** Whether this method may be retried after the request reached the origin. */
    public boolean retriesMethod(String method) {
        return methods.contains(method);
    }

    /**
     * Whether a failure talking to the origin is retried: {@code responseTimeout} says no response head came in
     * time ({@code TimeoutException}); anything else (refused, connect timeout, reset, invalid response) is an
     * {@code IOException}.
     */
    public boolean retriesFailure(boolean responseTimeout) {
        return exceptions.contains(responseTimeout ? "TimeoutException" : "IOException");
    }

    /**
     * Exponential back-off between tries: the n-th retry waits {@code first × factor^(n-1)}, at most {@code max}
     * (SCG's {@code firstBackoff}, {@code maxBackoff}, {@code factor}; {@code basedOnPreviousValue} gives the same
     * sequence for a fixed factor and is accepted for compatibility).
     */
    public record Backoff(Duration first, Duration max, int factor, boolean basedOnPreviousValue) {
        public Backoff {
            if (first.isNegative() || max.compareTo(first) < 0) {
                throw new IllegalArgumentException("backoff: firstBackoff must be ≥ 0 and maxBackoff ≥ firstBackoff");
            }
            if (factor < 1) {
                throw new IllegalArgumentException("backoff: factor must be at least 1, not " + factor);
            }
        }

        /** The wait before retry number {@code n} (1 for the first retry). */
        public Duration before(int n) {
            long nanos = first.toNanos();
            for (int i = 1; i < n && nanos < max.toNanos(); i++) {
                nanos = Math.multiplyHigh(nanos, factor) != 0 ? Long.MAX_VALUE : nanos * factor;
            }
            return Duration.ofNanos(Math.min(nanos, max.toNanos()));
        }
    }
}
