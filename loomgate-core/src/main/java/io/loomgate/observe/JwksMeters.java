package io.loomgate.observe;

import io.loomgate.security.JwksListener;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * {@code loomgate_jwks_fetches_total{source,outcome}}: each fetch of a {@code JwtAuth} filter's JWK set (outcome
 * {@code fetched|failed}). A failed fetch keeps the keys fetched before, so tokens go on being checked while an
 * identity provider is down; this counter is how an operator learns it is, before a key rotation makes every token
 * fail. Sources come from the configuration (URLs without user info or query, file paths), so the label set is
 * bounded. Both outcomes of a source are registered at its first fetch, so a rate() alert has the series at zero.
 */
final class JwksMeters implements JwksListener {
    private static final Outcome[] OUTCOMES = Outcome.values();

    private final MeterRegistry registry;
    private final ConcurrentMap<String, Counter[]> sources = new ConcurrentHashMap<>();

    JwksMeters(MeterRegistry registry) {
        this.registry = registry;
    }

    @Override
    public void fetched(String source, Outcome outcome) {
        sources.computeIfAbsent(source, this::register)[outcome.ordinal()].increment();
    }

    private Counter[] register(String source) {
        Counter[] counters = new Counter[OUTCOMES.length];
        for (Outcome o : OUTCOMES) {
            counters[o.ordinal()] = Counter.builder("loomgate.jwks.fetches")
                    .description("Fetches of a JwtAuth filter's JWK set (jwks-uri, or re-reads of a jwks-file), by "
                            + "outcome; a failed one keeps the keys fetched before")
                    .tag("source", source).tag("outcome", o.label()).register(registry);
        }
        return counters;
    }
}
