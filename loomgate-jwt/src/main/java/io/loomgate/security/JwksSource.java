package io.loomgate.security;

import com.nimbusds.jose.JWSAlgorithm;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;

/**
 * What makes two {@code JwtAuth} filters' JWKS sources one (the key {@link JwksKeySets} keeps them under): the URL,
 * the algorithms, {@code jwks-refresh}, {@code jwks-timeout} and the PEM CAs an {@code https://} URL is checked
 * against ({@code trust}: {@code jwks-trust-certificate}, else {@code upstream.ssl.trust-certificate}; null for the
 * JDK's store only). A changed trust file is read again at the next fetch, so it needs no new source.
 */
record JwksSource(URI uri, Set<JWSAlgorithm> algorithms, Duration refresh, Duration timeout, Path trust) {
    JwksSource {
        algorithms = Set.copyOf(algorithms);
    }

    /** The key source kept for this in {@code keySets}, or a new one, fetching now, that is kept from now on. */
    JwksKeys keptIn(JwksKeySets keySets) {
        return (JwksKeys) keySets.keep(this, () -> JwksKeys.fromUri(uri, trust, algorithms, refresh, timeout,
                keySets.listener()));
    }
}
