package io.loomgate.upstream;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.BiFunction;

/**
 * Every upstream of a gateway, by id, with one pool per distinct endpoint and the one sweeper thread that closes
 * their idle connections when they time out. Immutable after construction; thread-safe.
 *
 * <p>Lifecycle: {@link #create} builds the pools and starts the sweeper; {@link #close()} stops the sweeper and
 * closes every pool.
 */
public final class Upstreams {
    private final Map<String, Upstream> upstreams;
    private final List<UpstreamPool> pools;
    private final PoolSweeper sweeper;
    private final List<HealthChecker> healthCheckers;

    private Upstreams(Map<String, Upstream> upstreams, List<UpstreamPool> pools, List<HealthChecker> healthCheckers) {
        this.upstreams = upstreams;
        this.pools = pools;
        this.sweeper = new PoolSweeper(pools);
        this.healthCheckers = healthCheckers;
    }

    /**
     * Builds the upstreams and their pools and starts the sweeper. An endpoint named by several upstreams gets one
     * pool, shared by all of them, with the settings of the first definition that names it (in list order): a pool
     * can have only one set of limits, and the first is the one a reader of the configuration meets first.
     *
     * @throws IllegalArgumentException if two definitions have the same id, or one lists an endpoint twice
     */
    public static Upstreams create(List<UpstreamDefinition> definitions, PoolListener listener) {
        Objects.requireNonNull(listener, "listener");
        Upstreams created = build(definitions, (endpoint, settings) -> new UpstreamPool(endpoint, settings, listener));
        created.sweeper.start();
        created.healthCheckers.forEach(HealthChecker::start);
        return created;
    }

    /**
     * The upstreams of a reloaded configuration. Keeps this set's pool of every endpoint the new definitions still
     * name with the same pool settings (its idle connections stay warm: no reconnect storm, and requests in flight
     * release into it as usual), and makes new pools for the rest. Nothing changes for this set until
     * {@link Reconciled#commit()}: call it once the new routes serve.
     *
     * @throws IllegalArgumentException as {@link #create}; this set is then untouched
     */
    public Reconciled reconcile(List<UpstreamDefinition> definitions, PoolListener listener) {
        Objects.requireNonNull(listener, "listener");
        Map<Endpoint, UpstreamPool> mine = new LinkedHashMap<>();
        pools.forEach(p -> mine.put(p.endpoint(), p));
        List<UpstreamPool> opened = new ArrayList<>();
        Upstreams next = build(definitions, (endpoint, settings) -> {
            UpstreamPool old = mine.get(endpoint);
            if (old != null && old.settings().equals(settings)) {
                return old;
            }
            UpstreamPool fresh = new UpstreamPool(endpoint, settings, listener);
            opened.add(fresh);
            return fresh;
        });
        List<UpstreamPool> left = pools.stream().filter(p -> !next.pools.contains(p)).toList();
        return new Reconciled(this, next, next.pools.size() - opened.size(), opened.size(), left);
    }

    /**
     * The outcome of {@link #reconcile}.
     *
     * @param previous the set reconciled from
     * @param next     the upstreams to serve the new routes
     * @param kept     pools carried over with their connections
     * @param opened   new pools (new endpoints, or changed pool settings)
     * @param left     the previous pools no longer used
     */
    public record Reconciled(Upstreams previous, Upstreams next, int kept, int opened, List<UpstreamPool> left) {
        /**
         * The new set serves: its sweeper and health checkers start and the previous set's stop (a kept pool's
         * endpoint health starts over from its new checker), and each pool left behind drains
         * (idle connections closed now, the rest as their requests end; requests that matched an old route just
         * before the swap may still acquire from it).
         */
        public void commit() {
            previous.healthCheckers.forEach(HealthChecker::stop);
            previous.sweeper.stop();
            next.sweeper.start();
            next.healthCheckers.forEach(HealthChecker::start);
            left.forEach(UpstreamPool::drain);
        }
    }

    private static Upstreams build(List<UpstreamDefinition> definitions,
                                   BiFunction<Endpoint, PoolSettings, UpstreamPool> poolFor) {
        Map<Endpoint, UpstreamPool> poolsByEndpoint = new LinkedHashMap<>();
        Map<String, Upstream> byId = new LinkedHashMap<>();
        List<HealthChecker> checkers = new ArrayList<>();
        for (UpstreamDefinition definition : definitions) {
            if (byId.containsKey(definition.id())) {
                throw new IllegalArgumentException("duplicate upstream id '" + definition.id() + "'");
            }
            List<Endpoint> endpoints = definition.endpoints();
            for (int i = 0; i < endpoints.size(); i++) {
                if (endpoints.indexOf(endpoints.get(i)) != i) {
                    throw new IllegalArgumentException("upstream '" + definition.id() + "' lists endpoint "
                            + endpoints.get(i) + " twice");
                }
            }
            List<UpstreamMember> members = new ArrayList<>();
            for (int i = 0; i < endpoints.size(); i++) {
                UpstreamPool pool = poolsByEndpoint.computeIfAbsent(endpoints.get(i),
                        key -> poolFor.apply(key, definition.settings()));
                members.add(new UpstreamMember(pool, definition.balancing().weights().get(i)));
            }
            Upstream upstream = new Upstream(definition.id(), members, definition.balancing(), System::nanoTime);
            byId.put(definition.id(), upstream);
            if (definition.balancing().healthCheck() != null) {
                checkers.add(new HealthChecker(upstream, definition.balancing().healthCheck(),
                        definition.settings()));
            }
        }
        return new Upstreams(byId, List.copyOf(poolsByEndpoint.values()), List.copyOf(checkers));
    }

    /** The upstream with this id, or null. */
    public Upstream get(String id) {
        return upstreams.get(id);
    }

    public Collection<Upstream> all() {
        return upstreams.values();
    }

    /** Every distinct pool, each once even when several upstreams share it. */
    public List<UpstreamPool> pools() {
        return pools;
    }

    /** The sweeper's thread, for tests that check it ends. */
    Thread sweeperThread() {
        return sweeper.thread();
    }

    /** Stops the sweeper and closes every pool: idle connections now, in-use ones when released. Idempotent. */
    public void close() {
        healthCheckers.forEach(HealthChecker::stop);
        sweeper.stop();
        pools.forEach(UpstreamPool::close);
    }
}
