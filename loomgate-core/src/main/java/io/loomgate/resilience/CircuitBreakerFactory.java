package io.loomgate.resilience;

import io.loomgate.extension.ArgumentException;
import io.loomgate.extension.ExtensionArgs;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code CircuitBreaker} with Spring Cloud Gateway's arguments ({@code name}, {@code fallbackUri},
 * {@code statusCodes}, {@code resumeWithoutError}) and the breaker's settings under Resilience4j's meanings:
 * {@code failure-rate-threshold} (%, default 50), {@code sliding-window} (calls, 20), {@code minimum-calls} (10),
 * {@code wait-in-open} (5s), {@code permitted-calls-in-half-open} (3), {@code slow-call-threshold} (a call slower than
 * this counts as slow; default 60s as Resilience4j) and {@code slow-call-rate-threshold} (%, 100). Routes naming the
 * same breaker share it (the first one's settings apply), as in SCG. Shorthand: {@code CircuitBreaker=name}. A breaker
 * whose name and settings the configuration before had too is that configuration's breaker ({@link KeptPolicies}).
 */
final class CircuitBreakerFactory {
    private static final List<String> ARGS = List.of("name", "fallbackUri", "statusCodes", "resumeWithoutError",
            "failure-rate-threshold", "sliding-window", "minimum-calls", "wait-in-open",
            "permitted-calls-in-half-open", "slow-call-threshold", "slow-call-rate-threshold");

    private final CircuitBreakerSupport support;
    /**
     * This configuration's breakers, made when its first route names one: a registry of Resilience4j's made for
     * every configuration built cost the start of a gateway with no breaker its classes' initialisation (a few ms of
     * the main thread before the first answer). Configurations are built on one thread at a time.
     */
    private CircuitBreakerSupport.Breakers breakers;
    /** This configuration's breakers by name: the first route naming one decides its settings. */
    private final Map<String, Breaker> byName = new HashMap<>();
    private final KeptPolicies kept;

    CircuitBreakerFactory(CircuitBreakerSupport support, KeptPolicies kept) {
        this.support = support;
        this.kept = kept;
    }

    PolicyFactory factory() {
        // known by its name, not its route: routes naming one breaker share it
        return new PolicyFactory("CircuitBreaker", ARGS, (route, a) -> new RoutePolicy.Breaker(create(a)));
    }

    private CircuitBreakerPolicy create(ExtensionArgs a) {
        String name = a.optional("name", "");
        if (!name.matches("[A-Za-z0-9._-]+")) {
            throw new ArgumentException("name", "name: expected a breaker name of letters, digits, '.', '_' or '-', "
                    + "got '" + name + "'");
        }
        String fallback = null;
        if (a.has("fallbackUri")) {
            String uri = a.required("fallbackUri");
            if (!uri.startsWith("forward:/")) {
                throw new ArgumentException("fallbackUri", "fallbackUri: expected forward:/path (another route of "
                        + "this gateway), got '" + uri + "'");
            }
            fallback = uri.substring("forward:".length());
        }
        Duration wait = a.positiveDuration("wait-in-open", Duration.ofSeconds(5));
        CircuitBreakerSupport.Settings settings = new CircuitBreakerSupport.Settings(
                a.intIn("sliding-window", 20, 1, 100_000),
                a.intIn("minimum-calls", 10, 1, 100_000),
                a.intIn("failure-rate-threshold", 50, 1, 100),
                wait,
                a.intIn("permitted-calls-in-half-open", 3, 1, 10_000),
                a.positiveDuration("slow-call-threshold", Duration.ofSeconds(60)),
                a.intIn("slow-call-rate-threshold", 100, 1, 100));
        Breaker breaker = byName.computeIfAbsent(name, n -> kept.keep(n, settings, () -> newBreaker(n, settings)));
        return new CircuitBreakerPolicy(breaker, a.statuses("statusCodes"), fallback,
                a.bool("resumeWithoutError", false), wait);
    }

    private Breaker newBreaker(String name, CircuitBreakerSupport.Settings settings) {
        if (breakers == null) {
            breakers = support.newBreakers();
        }
        return breakers.breaker(name, settings);
    }
}
