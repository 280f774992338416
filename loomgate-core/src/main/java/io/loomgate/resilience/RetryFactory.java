package io.loomgate.resilience;

import io.loomgate.extension.ArgumentException;
import io.loomgate.extension.ExtensionArgs;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * {@code Retry} with Spring Cloud Gateway's arguments ({@code retries}, {@code statuses}, {@code series},
 * {@code methods}, {@code exceptions}, {@code backoff.firstBackoff|maxBackoff|factor|basedOnPreviousValue},
 * {@code jitter.randomFactor}, {@code timeout}) and Loomgate's ({@code max-replay-size}, {@code per-try-timeout},
 * {@code budget-percent}, {@code min-retries-per-second}). Shorthand in SCG's order:
 * {@code Retry=3,INTERNAL_SERVER_ERROR,GET,10ms,50ms,2,false,0.5,100ms} is retries, statuses, methods, the backoff's
 * firstBackoff, maxBackoff, factor and basedOnPreviousValue, then jitter.randomFactor and timeout.
 */
final class RetryFactory {
    private static final List<String> ARGS = List.of("retries", "statuses", "methods", "backoff.firstBackoff",
            "backoff.maxBackoff", "backoff.factor", "backoff.basedOnPreviousValue", "jitter.randomFactor", "timeout",
            "series", "exceptions",
            "max-replay-size", "per-try-timeout", "budget-percent", "min-retries-per-second");
    private static final Set<String> EXCEPTIONS = Set.of("IOException", "TimeoutException");

    /** {@code Retry}, each route's budget the one {@code kept} holds for its route and settings, or a new one. */
    static PolicyFactory factory(KeptPolicies kept) {
        return new PolicyFactory("Retry", ARGS, (route, a) -> {
            RetryPolicy p = policy(a);
            return new RoutePolicy.Retry(new RouteRetry(p, kept.budget(route, p)));
        });
    }

    private RetryFactory() {
    }

    static RetryPolicy policy(ExtensionArgs a) {
        RetryPolicy d = RetryPolicy.DEFAULTS;
        int retries = a.intIn("retries", d.retries(), 0, 100);
        Set<Integer> statuses = a.statuses("statuses");
        Set<Integer> series = a.series("series", d.series());
        Set<String> methods = a.has("methods") ? new LinkedHashSet<>(a.methods("methods", null)) : d.methods();
        Set<String> exceptions = d.exceptions();
        if (a.has("exceptions")) {
            exceptions = new LinkedHashSet<>();
            for (String e : a.list("exceptions")) {
                String simple = e.substring(e.lastIndexOf('.') + 1); // java.io.IOException as SCG users write it
                if (!EXCEPTIONS.contains(simple)) {
                    throw new ArgumentException("exceptions", "exceptions: expected IOException and/or "
                            + "TimeoutException, got '" + e + "'");
                }
                exceptions.add(simple);
            }
        }
        RetryPolicy.Backoff backoff = null;
        if (a.has("backoff.firstBackoff") || a.has("backoff.maxBackoff") || a.has("backoff.factor")
                || a.has("backoff.basedOnPreviousValue")) {
            Duration first = a.duration("backoff.firstBackoff", Duration.ofMillis(5));
            // first × 10 without Duration.multipliedBy, which goes through BigDecimal (a costly class to initialise
            // on JDK 25, docs/architecture.md "Start-up"); the same overflow check
            Duration max = a.duration("backoff.maxBackoff", Duration.ofSeconds(
                    Math.multiplyExact(first.getSeconds(), 10), first.getNano() * 10L));
            if (max.compareTo(first) < 0) {
                throw new ArgumentException("backoff.maxBackoff", "backoff.maxBackoff: must not be shorter than "
                        + "firstBackoff (" + first + ")");
            }
            backoff = new RetryPolicy.Backoff(first, max, a.intIn("backoff.factor", 2, 1, 100),
                    a.bool("backoff.basedOnPreviousValue", true));
        }
        // SCG's randomFactor defaults to 0.5 once jitter is configured; reactor refuses a factor outside 0..1
        double jitter = a.decimalIn("jitter.randomFactor", 0, 0, 1);
        Duration timeout = a.positiveDuration("timeout", null);
        return new RetryPolicy(retries, statuses, series, methods, exceptions, backoff,
                a.size("max-replay-size", d.maxReplaySize()), a.positiveDuration("per-try-timeout", null),
                a.intIn("budget-percent", d.budgetPercent(), 0, 1000),
                a.intIn("min-retries-per-second", d.minRetriesPerSecond(), 0, 1_000_000), jitter, timeout);
    }
}
