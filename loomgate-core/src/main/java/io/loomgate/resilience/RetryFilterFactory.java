package io.loomgate.resilience;

import io.loomgate.extension.ArgumentException;
import io.loomgate.filter.FilterFactory;
import io.loomgate.filter.GatewayFilter;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * {@code Retry} with Spring Cloud Gateway's arguments ({@code retries}, {@code statuses}, {@code series},
 * {@code methods}, {@code exceptions}, {@code backoff.firstBackoff|maxBackoff|factor|basedOnPreviousValue}) and
 * Loomgate's ({@code max-replay-size}, {@code per-try-timeout}, {@code budget-percent}, {@code min-retries-per-second}).
 * Shorthand in SCG's order: {@code Retry=3,INTERNAL_SERVER_ERROR,GET,10ms,50ms,2,false} is retries, statuses,
 * methods, then the backoff's firstBackoff, maxBackoff, factor and basedOnPreviousValue.
 */
public final class RetryFilterFactory implements FilterFactory {
    /**
     * The first nine in SCG's shortcut order ({@code Retry=3,INTERNAL_SERVER_ERROR,GET,10ms,50ms,2,false,0.5,100ms});
     * SCG's last two, {@code jitter.randomFactor} and {@code timeout}, are refused (see {@link #create}).
     */
    private static final List<String> ARGS = List.of("retries", "statuses", "methods", "backoff.firstBackoff",
            "backoff.maxBackoff", "backoff.factor", "backoff.basedOnPreviousValue", "jitter.randomFactor", "timeout",
            "series", "exceptions",
            "max-replay-size", "per-try-timeout", "budget-percent", "min-retries-per-second");
    private static final Map<String, Integer> SERIES = Map.of("INFORMATIONAL", 1, "SUCCESSFUL", 2,
            "REDIRECTION", 3, "CLIENT_ERROR", 4, "SERVER_ERROR", 5);
    private static final Set<String> EXCEPTIONS = Set.of("IOException", "TimeoutException");

    @Override
    public String name() {
        return "Retry";
    }

    @Override
    public List<String> argNames() {
        return ARGS;
    }

    @Override
    public GatewayFilter create(Map<String, String> args) {
        RetryPolicy d = RetryPolicy.DEFAULTS;
        if (args.containsKey("jitter.randomFactor")) {
            throw new ArgumentException("jitter.randomFactor", "jitter.randomFactor: not supported: Loomgate's backoff has no jitter "
                    + "(its retry budget bounds retry storms instead); remove it");
        }
        if (args.containsKey("timeout")) {
            throw new ArgumentException("timeout", "timeout: not supported: SCG's bound on all tries together has no "
                    + "equivalent; per-try-timeout bounds each try, inside the route's timeout");
        }
        int retries = args.containsKey("retries") ? ArgText.intIn("retries", args.get("retries"), 0, 100) : d.retries();
        Set<Integer> statuses = new LinkedHashSet<>();
        for (String s : ArgText.list(args.get("statuses"))) {
            statuses.add(ArgText.status("statuses", s));
        }
        Set<Integer> series = d.series();
        if (args.containsKey("series")) {
            series = new LinkedHashSet<>();
            for (String s : ArgText.list(args.get("series"))) {
                Integer digit = SERIES.get(s.toUpperCase(Locale.ROOT));
                if (digit == null) {
                    throw new IllegalArgumentException("series: expected one of " + SERIES.keySet() + ", got '" + s
                            + "'");
                }
                series.add(digit);
            }
        }
        Set<String> methods = d.methods();
        if (args.containsKey("methods")) {
            methods = new LinkedHashSet<>();
            for (String m : ArgText.list(args.get("methods"))) {
                if (!m.matches("[A-Za-z]+")) {
                    throw new IllegalArgumentException("methods: expected method names like GET,POST, got '" + m + "'");
                }
                methods.add(m.toUpperCase(Locale.ROOT));
            }
        }
        Set<String> exceptions = d.exceptions();
        if (args.containsKey("exceptions")) {
            exceptions = new LinkedHashSet<>();
            for (String e : ArgText.list(args.get("exceptions"))) {
                String simple = e.substring(e.lastIndexOf('.') + 1); // java.io.IOException as SCG users write it
                if (!EXCEPTIONS.contains(simple)) {
                    throw new IllegalArgumentException("exceptions: expected IOException and/or TimeoutException, got '"
                            + e + "'");
                }
                exceptions.add(simple);
            }
        }
        RetryPolicy.Backoff backoff = null;
        if (args.containsKey("backoff.firstBackoff") || args.containsKey("backoff.maxBackoff")
                || args.containsKey("backoff.factor") || args.containsKey("backoff.basedOnPreviousValue")) {
            Duration first = ArgText.duration("backoff.firstBackoff", args.getOrDefault("backoff.firstBackoff", "5ms"));
            Duration max = args.containsKey("backoff.maxBackoff")
                    ? ArgText.duration("backoff.maxBackoff", args.get("backoff.maxBackoff")) : first.multipliedBy(10);
            int factor = ArgText.intIn("backoff.factor", args.getOrDefault("backoff.factor", "2"), 1, 100);
            boolean previous = ArgText.bool("backoff.basedOnPreviousValue",
                    args.getOrDefault("backoff.basedOnPreviousValue", "true"));
            backoff = new RetryPolicy.Backoff(first, max, factor, previous);
        }
        long replay = args.containsKey("max-replay-size")
                ? ArgText.size("max-replay-size", args.get("max-replay-size")) : d.maxReplaySize();
        Duration perTry = args.containsKey("per-try-timeout")
                ? ArgText.duration("per-try-timeout", args.get("per-try-timeout")) : null;
        if (perTry != null && perTry.isZero()) {
            throw new IllegalArgumentException("per-try-timeout: must be more than 0");
        }
        int budget = args.containsKey("budget-percent")
                ? ArgText.intIn("budget-percent", args.get("budget-percent"), 0, 1000) : d.budgetPercent();
        int floor = args.containsKey("min-retries-per-second")
                ? ArgText.intIn("min-retries-per-second", args.get("min-retries-per-second"), 0, 1_000_000)
                : d.minRetriesPerSecond();
        return new RetryFilter(new RetryPolicy(retries, statuses, series, methods, exceptions, backoff, replay, perTry,
                budget, floor));
    }
}
