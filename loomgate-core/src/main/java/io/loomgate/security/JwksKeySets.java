package io.loomgate.security;

import io.loomgate.filter.GatewayFilter;
import java.nio.file.Path;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * The JWKS URLs one gateway's {@code JwtAuth} filters take their keys from, kept across live reloads as the upstream
 * pools are. A reload builds every filter anew; a filter whose key source is unchanged (the same URL, algorithms,
 * {@code jwks-refresh} and {@code jwks-timeout}) gets the key source already serving, with the keys it holds
 * and its refresh schedule, instead of a cold one that has no keys until a fetch succeeds. So a reload costs no
 * fetch, and an identity provider that is down during one costs nothing. Within one configuration, routes naming
 * the same source share one. A {@code jwks-file} is read again on every reload (it is local, and a reload is how an
 * edit of it shows at once); a {@code secret} has nothing to keep.
 *
 * <p>Lifecycle: one per gateway, handed to every build of its routes ({@link SecurityFilters#all(JwksKeySets)}); after
 * a swap, {@link #retain} forgets the sources no served filter uses. A key source holds no thread between fetches,
 * so forgetting one is all its end needs.
 *
 * <p>The key sources themselves are {@code JwtAuth}'s, in the module loomgate-jwt ({@link JwtAuthSupport}): this
 * class only keeps them, so a gateway without that module still has one (and keeps nothing).
 */
public final class JwksKeySets {
    private final ConcurrentHashMap<Object, Object> kept = new ConcurrentHashMap<>();
    private final JwksListener listener;
    private volatile Path upstreamTrust;

    /** Key sets whose fetches nobody counts (validation, tests, a gateway without metrics). */
    public JwksKeySets() {
        this(JwksListener.NOOP);
    }

    /** Key sets whose sources tell {@code listener} how each fetch ended. */
    public JwksKeySets(JwksListener listener) {
        this.listener = listener;
    }

    /** Who is told how each fetch of a source kept here ended. */
    JwksListener listener() {
        return listener;
    }

    /**
     * The configuration being built trusts these PEM CAs for {@code https://} origins ({@code
     * upstream.ssl.trust-certificate}; null: the JDK's store only): a {@code jwks-uri} without its own
     * {@code jwks-trust-certificate} trusts them too. Set before each build of the filters.
     */
    public void upstreamTrust(Path pem) {
        upstreamTrust = pem;
    }

    /** What {@link #upstreamTrust(Path)} set last, or null. */
    Path upstreamTrust() {
        return upstreamTrust;
    }

    /**
     * The key source kept for {@code source} (a value naming the URL and how it is read: equal values, one source),
     * or the one {@code make} makes now, kept from now on.
     */
    Object keep(Object source, Supplier<?> make) {
        return kept.computeIfAbsent(source, s -> make.get());
    }

    /** Forgets every source none of these filters (those of the routes served now) takes keys from. */
    public void retain(Iterable<? extends GatewayFilter> served) {
        Set<Object> used = Collections.newSetFromMap(new IdentityHashMap<>());
        JwtAuthSupport.find().ifPresent(jwt -> {
            for (GatewayFilter f : served) {
                Object source = jwt.keySourceOf(f);
                if (source != null) {
                    used.add(source);
                }
            }
        });
        kept.values().removeIf(k -> !used.contains(k));
    }

    /** How many sources are kept now. */
    public int size() {
        return kept.size();
    }
}
