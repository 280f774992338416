package io.loomgate.resilience;

import io.loomgate.filter.FilterFactory;
import java.util.ArrayList;
import java.util.List;

/**
 * The filters of this package, for the registry configuration builds with: Retry, and CircuitBreaker when its
 * module, loomgate-resilience4j, is on the class path ({@link CircuitBreakerSupport}).
 */
public final class ResilienceFilters {
    private ResilienceFilters() {
    }

    /** New factories: breakers are shared within the configuration built with them. */
    public static List<FilterFactory> all() {
        List<FilterFactory> all = new ArrayList<>(List.of(new RetryFilterFactory()));
        CircuitBreakerSupport.find().ifPresent(cb -> all.add(cb.factory()));
        return List.copyOf(all);
    }
}
