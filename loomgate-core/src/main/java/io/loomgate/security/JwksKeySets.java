package io.loomgate.security;

import com.nimbusds.jose.JWSAlgorithm;
import io.loomgate.filter.GatewayFilter;
import java.net.URI;
import java.time.Duration;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The JWKS URLs one gateway's {@code JwtAuth} filters take their keys from, kept across live reloads as the upstream
 * pools are. A reload builds every filter anew; a filter whose key source is unchanged (the same URL, algorithms,
 * {@code jwks-refresh} and {@code jwks-timeout}) gets the {@link JwksKeys} already serving, with the keys it holds
 * and its refresh schedule, instead of a cold one that has no keys until a fetch succeeds. So a reload costs no
 * fetch, and an identity provider that is down during one costs nothing. Within one configuration, routes naming
 * the same source share one. A {@code jwks-file} is read again on every reload (it is local, and a reload is how an
 * edit of it shows at once); a {@code secret} has nothing to keep.
 *
 * <p>Lifecycle: one per gateway, handed to every build of its routes ({@link SecurityFilters#all(JwksKeySets)}); after
 * a swap, {@link #retain} forgets the sources no served filter uses. A {@link JwksKeys} holds no thread between
 * fetches, so forgetting one is all its end needs.
 */
public final class JwksKeySets {
    private record Source(URI uri, Set<JWSAlgorithm> algorithms, Duration refresh, Duration timeout) {
    }

    private final ConcurrentHashMap<Source, JwksKeys> kept = new ConcurrentHashMap<>();

    /** The key source for a JWKS URL: the one kept for it, or a new one, fetching now, that is kept from now on. */
    JwksKeys fromUri(URI uri, Set<JWSAlgorithm> algorithms, Duration refresh, Duration timeout) {
        return kept.computeIfAbsent(new Source(uri, Set.copyOf(algorithms), refresh, timeout),
                s -> JwksKeys.fromUri(s.uri(), s.algorithms(), s.refresh(), s.timeout()));
    }

    /** Forgets every source none of these filters (those of the routes served now) takes keys from. */
    public void retain(Iterable<? extends GatewayFilter> served) {
        Set<KeySource> used = Collections.newSetFromMap(new IdentityHashMap<>());
        for (GatewayFilter f : served) {
            if (f instanceof JwtAuthFilter jwt) {
                used.add(jwt.keys());
            }
        }
        kept.values().removeIf(k -> !used.contains(k));
    }

    /** How many sources are kept now. */
    public int size() {
        return kept.size();
    }
}
