package io.loomgate.upstream;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

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
                        key -> new UpstreamPool(key, definition.settings(), listener));
                members.add(new UpstreamMember(pool, definition.balancing().weights().get(i)));
            }
            Upstream upstream = new Upstream(definition.id(), members, definition.balancing(), System::nanoTime);
            byId.put(definition.id(), upstream);
            if (definition.balancing().healthCheck() != null) {
                checkers.add(new HealthChecker(upstream, definition.balancing().healthCheck(),
                        definition.settings()));
            }
        }
        Upstreams created = new Upstreams(byId, List.copyOf(poolsByEndpoint.values()), List.copyOf(checkers));
        created.sweeper.start();
        checkers.forEach(HealthChecker::start);
        return created;
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
