package io.loomgate.security;

import com.nimbusds.jose.JWSAlgorithm;
import java.net.URI;
import java.time.Duration;
import java.util.Set;

/**
 * What makes two {@code JwtAuth} filters' JWKS sources one (the key {@link JwksKeySets} keeps them under): the URL,
 * the algorithms, {@code jwks-refresh} and {@code jwks-timeout}.
 */
record JwksSource(URI uri, Set<JWSAlgorithm> algorithms, Duration refresh, Duration timeout) {
    JwksSource {
        algorithms = Set.copyOf(algorithms);
    }

    /** The key source kept for this in {@code keySets}, or a new one, fetching now, that is kept from now on. */
    JwksKeys keptIn(JwksKeySets keySets) {
        return (JwksKeys) keySets.keep(this, () -> JwksKeys.fromUri(uri, algorithms, refresh, timeout));
    }
}
