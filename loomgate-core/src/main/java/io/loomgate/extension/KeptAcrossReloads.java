package io.loomgate.extension;

import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

/**
 * State a reloading gateway keeps from one build of its routes to the next when the settings that made it are
 * unchanged: the circuit breakers and retry budgets ({@code resilience.KeptPolicies}) and the local rate-limit buckets
 * ({@code ratelimit.RateLimiting}) share this one shape. Internal: not in the API table of docs/extending.md.
 *
 * <p>A factory is given its arguments, not its route, so a value is known by its settings and by its place among the
 * values of one build with equal settings: the n-th one made with settings {@code S} in the next build gets the n-th
 * one's value of the builds before. Two routes with equal settings keep theirs as long as their order is kept; a
 * reload that removes the first of them hands the second the first one's state (of the same settings). Values shared
 * by name within one build (breakers) ask once per build, so they are always the first.
 *
 * <p>Lifecycle: the owner calls {@link #retain} before each build (which also starts counting places anew) and after
 * each swap, with the values the routes served now use; everything else (a replaced configuration's, an assembly
 * built and never served) is forgotten. Builds and retains run one at a time (the reloader's lock); the monitor
 * guards map updates only, no I/O.
 *
 * @param <S> the settings that decide a value's state (a record: equal settings, same meaning)
 * @param <V> the kept value
 */
public final class KeptAcrossReloads<S, V> {
    private record Key<S>(S settings, int nth) {
    }

    private final Map<Key<S>, V> kept = new HashMap<>();
    /** How many values of each settings the build under way has asked for so far; cleared by {@link #retain}. */
    private final Map<S, Integer> seen = new HashMap<>();

    /** The value kept for the next use of these settings in this build, or the one {@code make} makes, kept now. */
    public synchronized V keep(S settings, Supplier<? extends V> make) {
        int nth = seen.merge(settings, 1, Integer::sum);
        return kept.computeIfAbsent(new Key<>(settings, nth), k -> make.get());
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
