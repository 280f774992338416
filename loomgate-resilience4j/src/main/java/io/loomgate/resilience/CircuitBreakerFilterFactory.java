package io.loomgate.resilience;

import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import io.loomgate.filter.FilterFactory;
import io.loomgate.filter.GatewayFilter;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code CircuitBreaker} with Spring Cloud Gateway's arguments ({@code name}, {@code fallbackUri},
 * {@code statusCodes}) and the breaker's settings under Resilience4j's meanings: {@code failure-rate-threshold} (%,
 * default 50), {@code sliding-window} (calls, 20), {@code minimum-calls} (10), {@code wait-in-open} (5s),
 * {@code permitted-calls-in-half-open} (3), {@code slow-call-threshold} (a call slower than this counts as slow;
 * default 60s as Resilience4j) and {@code slow-call-rate-threshold} (%, 100). Routes naming the same breaker share it
 * (the first one's settings apply), as in SCG. Shorthand: {@code CircuitBreaker=name}.
 */
public final class CircuitBreakerFilterFactory implements FilterFactory {
    private static final List<String> ARGS = List.of("name", "fallbackUri", "statusCodes", "failure-rate-threshold",
            "sliding-window", "minimum-calls", "wait-in-open", "permitted-calls-in-half-open", "slow-call-threshold",
            "slow-call-rate-threshold");

    private final CircuitBreakerRegistry registry = CircuitBreakerRegistry.ofDefaults();

    @Override
    public String name() {
        return "CircuitBreaker";
    }

    @Override
    public List<String> argNames() {
        return ARGS;
    }

    @Override
    public GatewayFilter create(Map<String, String> args) {
        String name = args.getOrDefault("name", "").trim();
        if (name.isEmpty() || !name.matches("[A-Za-z0-9._-]+")) {
            throw new IllegalArgumentException("name: expected a breaker name of letters, digits, '.', '_' or '-', got '"
                    + name + "'");
        }
        String fallback = null;
        if (args.containsKey("fallbackUri")) {
            String uri = args.get("fallbackUri").trim();
            if (!uri.startsWith("forward:/")) {
                throw new IllegalArgumentException("fallbackUri: expected forward:/path (another route of this "
                        + "gateway), got '" + uri + "'");
            }
            fallback = uri.substring("forward:".length());
        }
        Set<Integer> statuses = new LinkedHashSet<>();
        for (String s : ArgText.list(args.get("statusCodes"))) {
            statuses.add(ArgText.status("statusCodes", s));
        }
        int window = intArg(args, "sliding-window", 20, 1, 100_000);
        Duration wait = durationArg(args, "wait-in-open", Duration.ofSeconds(5));
        CircuitBreakerConfig config = CircuitBreakerConfig.custom()
                .slidingWindowType(CircuitBreakerConfig.SlidingWindowType.COUNT_BASED)
                .slidingWindowSize(window)
                .minimumNumberOfCalls(intArg(args, "minimum-calls", 10, 1, 100_000))
                .failureRateThreshold(intArg(args, "failure-rate-threshold", 50, 1, 100))
                .waitDurationInOpenState(wait)
                .permittedNumberOfCallsInHalfOpenState(intArg(args, "permitted-calls-in-half-open", 3, 1, 10_000))
                .slowCallDurationThreshold(durationArg(args, "slow-call-threshold", Duration.ofSeconds(60)))
                .slowCallRateThreshold(intArg(args, "slow-call-rate-threshold", 100, 1, 100))
                .recordExceptions(Throwable.class)
                .build();
        CircuitBreaker breaker = registry.circuitBreaker(name, config);
        return new CircuitBreakerFilter(breaker, statuses, fallback, wait);
    }

    private static int intArg(Map<String, String> args, String name, int otherwise, int min, int max) {
        return args.containsKey(name) ? ArgText.intIn(name, args.get(name), min, max) : otherwise;
    }

    private static Duration durationArg(Map<String, String> args, String name, Duration otherwise) {
        if (!args.containsKey(name)) {
            return otherwise;
        }
        Duration d = ArgText.duration(name, args.get(name));
        if (d.isZero()) {
            throw new IllegalArgumentException(name + ": must be more than 0");
        }
        return d;
    }
}
