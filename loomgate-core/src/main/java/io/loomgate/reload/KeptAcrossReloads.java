package io.loomgate.reload;

import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

/**
 * State a reloading gateway keeps from one build of its routes to the next when what made it is unchanged: the
 * circuit breakers and retry budgets ({@code resilience.KeptPolicies}) and the local rate-limit buckets
 * ({@code ratelimit.RateLimiting}) share this one shape.
 *
 * <p>A value is known by its key: the settings that decide its state and, for per-route state (buckets, budgets), the
 * id of the route that made it (factories are told it: {@code ExtensionFactory.create(routeId, args)}). Until session
 * 58 a factory was given its arguments only, so values were known by settings and by their place among the values of
 * one build with equal settings, and a reload that removed the first of two routes with identical limiter arguments
 * handed the second the first one's buckets. The place still counts, but only among values of one build with equal
 * keys (two identical limiters on one route): the n-th such one gets the n-th one's value of the builds before.
 *
 * <p>Internal, not for plugins: keeping is only right when the owner calls {@link #retain} at the gateway's build and
 * swap points, which no plugin sees (docs/extending.md, "State across reloads").
 *
 * <p>Lifecycle: the owner calls {@link #retain} before each build (which also starts counting places anew) and after
 * each swap, with the values the routes served now use; everything else (a replaced configuration's, an assembly
 * built and never served) is forgotten. Builds and retains run one at a time (the reloader's lock); the monitor
 * guards map updates only, no I/O.
 *
 * @param <K> what decides a value's state: a record of the settings (and the route id where state is per route);
 *            equal keys, same meaning
 * @param <V> the kept value
 */
public final class KeptAcrossReloads<K, V> {
    private record Place<K>(K key, int nth) {
    }

    private final Map<Place<K>, V> kept = new HashMap<>();
    /** How many values of each key the build under way has asked for so far; cleared by {@link #retain}. */
    private final Map<K, Integer> seen = new HashMap<>();

    /** The value kept for the next use of this key in this build, or the one {@code make} makes, kept now. */
    public synchronized V keep(K key, Supplier<? extends V> make) {
        int nth = seen.merge(key, 1, Integer::sum);
        return kept.computeIfAbsent(new Place<>(key, nth), k -> make.get());
    }

    /** Forgets every value not among {@code used} (compared by identity) and starts counting a new build. */
    public synchronized void retain(Iterable<? extends V> used) {
        Set<Object> in = Collections.newSetFromMap(new IdentityHashMap<>());
        used.forEach(in::add);
        kept.values().removeIf(v -> !in.contains(v));
        seen.clear();
    }

    /** How many values are kept now. */
    public synchronized int size() {
        return kept.size();
    }
}
