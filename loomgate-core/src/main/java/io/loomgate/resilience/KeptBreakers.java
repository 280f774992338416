package io.loomgate.resilience;

import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * The circuit breakers one gateway keeps across live reloads, as it keeps its upstream pools and JWKS key sources. A
 * reload builds every route anew; a {@code CircuitBreaker} whose name and settings are unchanged gets the breaker
 * already serving, with its state (open, its sliding window), instead of a closed one with an empty window. Until
 * session 57 every reload made every breaker anew, so any applied reload, even one that changed another route,
 * closed an open breaker and sent the traffic it was holding back to the failing upstream at once. A breaker whose
 * settings changed starts over (its thresholds and window are no longer the ones its state was counted under).
 *
 * <p>Lifecycle: one per gateway, handed to every build of its routes
 * ({@link PolicyRegistry#withBuiltIns(KeptBreakers)}); after a swap, and before the next build, {@link #retain}
 * forgets the breakers no served route uses (so those of an assembly built and never served go too). A breaker holds
 * no thread, so forgetting one is all its end needs.
 */
public final class KeptBreakers {
    /** A breaker's name and settings: equal keys, one breaker. */
    private record Key(String name, CircuitBreakerSupport.Settings settings) {
    }

    private final ConcurrentHashMap<Key, Breaker> kept = new ConcurrentHashMap<>();

    /** The breaker kept under this name and these settings, or the one {@code make} makes now, kept from now on. */
    Breaker keep(String name, CircuitBreakerSupport.Settings settings, Supplier<Breaker> make) {
        return kept.computeIfAbsent(new Key(name, settings), k -> make.get());
    }

    /** Forgets every breaker none of these policies (those of the routes served now) uses. */
    public void retain(Iterable<CircuitBreakerPolicy> served) {
        Set<Breaker> used = Collections.newSetFromMap(new IdentityHashMap<>());
        served.forEach(p -> used.add(p.breaker()));
        kept.values().removeIf(b -> !used.contains(b));
    }

    /** How many breakers are kept now. */
    public int size() {
        return kept.size();
    }
}
