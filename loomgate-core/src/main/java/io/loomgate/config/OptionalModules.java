package io.loomgate.config;

import java.util.Map;

/**
 * The built-in filters that live in optional modules (beside loomgate-core, with the library each needs), so that a
 * configuration naming one without its module is told which module to add instead of "unknown filter". Each module
 * registers its filter itself when it is on the class path; this is only the message's table.
 */
final class OptionalModules {
    private static final Map<String, String> FILTERS = Map.of(
            "JwtAuth", "io.loomgate:loomgate-jwt (nimbus-jose-jwt)",
            "CircuitBreaker", "io.loomgate:loomgate-resilience4j (Resilience4j)");

    private OptionalModules() {
    }

    /** The module (with its library) that provides this predicate or filter, or null when none does. */
    static String of(String kind, String name) {
        return kind.equals("filter") ? FILTERS.get(name) : null;
    }
}
