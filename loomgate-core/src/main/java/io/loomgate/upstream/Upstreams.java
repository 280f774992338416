package io.loomgate.upstream;

import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * Every upstream of a gateway, by id, with one pool per distinct endpoint, the one sweeper thread that closes their
 * idle connections when they time out, the health checkers, and the DNS refresh that turns each host name into one
 * endpoint per address. Thread-safe.
 *
 * <p>The set of upstreams never changes; their members do, when a name's addresses change ({@link DnsRefresh}):
 * under {@code membership}, each upstream naming the host gets its new members (those of addresses that stay are
 * kept, with their health and ejection state), the pools of new addresses are made, and the pools no upstream uses
 * any more are drained: no new requests choose them, requests already on them finish, idle connections close now and
 * busy ones when returned.
 *
 * <p>Lifecycle: {@link #create} builds the pools, resolves the names and starts the background threads;
 * {@link #close()} stops them and closes every pool. A live reload {@link #reconcile}s to the next set.
 */
public final class Upstreams {
    private final Map<String, Upstream> upstreams;
    private final List<UpstreamDefinition> definitions;
    private final Map<String, HealthChecker> healthCheckers;
    private final PoolListener listener;
    private final NameResolver resolver;
    private final PoolSweeper sweeper;
    private final DnsRefresh dns;
    private final Duration lookupTimeout;
    private final ReentrantLock membership = new ReentrantLock();
    /** Each refreshed host name's addresses now; a name that never resolved is absent. Guarded by membership. */
    private final Map<String, List<InetAddress>> addresses;
    /** Guarded by membership: a reconciled set took over (or this one closed); DNS answers no longer apply here. */
    private boolean retired;
    /** The distinct pools the members use now; replaced under membership, read by anyone. */
    private volatile List<UpstreamPool> pools;

    private Upstreams(Map<String, Upstream> upstreams, List<UpstreamDefinition> definitions,
                      Map<String, HealthChecker> healthCheckers, List<UpstreamPool> pools, PoolListener listener,
                      NameResolver resolver, Map<String, List<InetAddress>> addresses, Duration lookupTimeout) {
        this.upstreams = upstreams;
        this.definitions = definitions;
        this.healthCheckers = healthCheckers;
        this.pools = pools;
        this.listener = listener;
        this.resolver = resolver;
        this.addresses = new HashMap<>(addresses);
        this.lookupTimeout = lookupTimeout;
        this.sweeper = new PoolSweeper(() -> this.pools);
        Map<String, Duration> intervals = refreshIntervals(definitions);
        this.dns = intervals.isEmpty() ? null
                : new DnsRefresh(resolver, intervals, addresses, this::resolved, lookupTimeout);
    }

    /** {@link #create(List, PoolListener, NameResolver)} with the JDK's resolver. */
    public static Upstreams create(List<UpstreamDefinition> definitions, PoolListener listener) {
        return create(definitions, listener, NameResolver.JDK);
    }

    /**
     * Builds the upstreams and their pools and starts the sweeper, the health checks and the DNS refresh. A host
     * name of an upstream with DNS refresh on is resolved first (all names at once, within
     * {@link DnsRefresh#LOOKUP_TIMEOUT}); each address becomes an endpoint with the configured weight, while a name
     * that does not resolve stays one endpoint, dialled by name, until a refresh resolves it. An endpoint named by
     * several upstreams gets one pool, shared by all of them, with the settings of the first definition that names
     * it (in list order): a pool can have only one set of limits, and the first is the one a reader of the
     * configuration meets first.
     *
     * @throws IllegalArgumentException if two definitions have the same id, or one lists an endpoint twice
     */
    public static Upstreams create(List<UpstreamDefinition> definitions, PoolListener listener,
                                   NameResolver resolver) {
        return create(definitions, listener, resolver, DnsRefresh.LOOKUP_TIMEOUT);
    }

    static Upstreams create(List<UpstreamDefinition> definitions, PoolListener listener, NameResolver resolver,
                            Duration lookupTimeout) {
        Objects.requireNonNull(listener, "listener");
        checkDefinitions(definitions);
        Map<String, List<InetAddress>> resolved = DnsRefresh.resolveAll(resolver,
                refreshIntervals(definitions).keySet(), lookupTimeout);
        Upstreams created = build(definitions, listener, resolver, resolved, lookupTimeout, Map.of(), Map.of(),
                (endpoint, settings) -> new UpstreamPool(endpoint, settings, listener));
        created.start();
        return created;
    }

    /**
     * The upstreams of a reloaded configuration. Keeps this set's pool of every endpoint the new definitions still
     * name with the same pool settings (its idle connections stay warm: no reconnect storm, and requests in flight
     * release into it as usual), and makes new pools for the rest. An upstream whose definition is unchanged is
     * kept whole, with its health checker running on: its members' health verdicts and ejections hold, so a reload
     * that changed a route or another upstream does not send traffic back to an instance found bad (until session
     * 59 every upstream was made anew, and an ejected instance of a shared {@code lb://} upstream took traffic again
     * when one of its routes was edited). A host name this set has resolved keeps its
     * addresses (no lookup, so its pools are kept too); other names are looked up now. From here on this set no
     * longer follows DNS (the next one does, once committed), and nothing else changes for it until
     * {@link Reconciled#commit()}: call it once the new routes serve.
     *
     * @throws IllegalArgumentException as {@link #create}; this set is then untouched
     */
    public Reconciled reconcile(List<UpstreamDefinition> definitions, PoolListener listener) {
        Objects.requireNonNull(listener, "listener");
        checkDefinitions(definitions);
        membership.lock();
        try {
            Map<Endpoint, UpstreamPool> mine = new LinkedHashMap<>();
            pools.forEach(p -> mine.put(p.endpoint(), p));
            Map<String, List<InetAddress>> known = new HashMap<>();
            Set<String> unknown = new LinkedHashSet<>();
            for (String name : refreshIntervals(definitions).keySet()) {
                if (addresses.containsKey(name)) {
                    known.put(name, addresses.get(name));
                } else {
                    unknown.add(name);
                }
            }
            known.putAll(DnsRefresh.resolveAll(resolver, unknown, lookupTimeout));
            List<UpstreamPool> opened = new ArrayList<>();
            Map<String, Upstream> unchanged = new HashMap<>();
            for (UpstreamDefinition d : definitions) {
                if (this.definitions.contains(d)) {
                    unchanged.put(d.id(), upstreams.get(d.id()));
                }
            }
            BiFunction<Endpoint, PoolSettings, UpstreamPool> poolFor = (endpoint, settings) -> {
                UpstreamPool old = mine.get(endpoint);
                if (old != null && old.settings().equals(settings)) {
                    return old;
                }
                UpstreamPool fresh = new UpstreamPool(endpoint, settings, listener);
                opened.add(fresh);
                return fresh;
            };
            Upstreams next = build(definitions, listener, resolver, known, lookupTimeout, unchanged, healthCheckers,
                    poolFor);
            retired = true; // pools and members stay as they are now, so 'left' below stays exact until commit
            List<UpstreamPool> left = pools.stream().filter(p -> !next.pools.contains(p)).toList();
            return new Reconciled(this, next, next.pools.size() - opened.size(), opened.size(), left);
        } finally {
            membership.unlock();
        }
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
         * The new set serves: its sweeper, health checkers and DNS refresh start and the previous set's stop (a
         * kept pool's endpoint health starts over from its new checker), and each pool left behind drains
         * (idle connections closed now, the rest as their requests end; requests that matched an old route just
         * before the swap may still acquire from it).
         */
        public void commit() {
            previous.stopBackground(next);
            next.start();
            left.forEach(UpstreamPool::drain);
        }
    }

    private static void checkDefinitions(List<UpstreamDefinition> definitions) {
        Set<String> ids = new LinkedHashSet<>();
        for (UpstreamDefinition definition : definitions) {
            if (!ids.add(definition.id())) {
                throw new IllegalArgumentException("duplicate upstream id '" + definition.id() + "'");
            }
            List<Endpoint> endpoints = definition.endpoints();
            for (int i = 0; i < endpoints.size(); i++) {
                if (endpoints.indexOf(endpoints.get(i)) != i) {
                    throw new IllegalArgumentException("upstream '" + definition.id() + "' lists endpoint "
                            + endpoints.get(i) + " twice");
                }
            }
        }
    }

    /** Each host name to re-resolve, with the shortest refresh interval among the upstreams naming it. */
    private static Map<String, Duration> refreshIntervals(List<UpstreamDefinition> definitions) {
        Map<String, Duration> intervals = new LinkedHashMap<>();
        for (UpstreamDefinition d : definitions) {
            if (!d.refreshesDns()) {
                continue;
            }
            for (Endpoint e : d.endpoints()) {
                if (e.hasHostName()) {
                    intervals.merge(e.host(), d.dnsRefresh(), (a, b) -> a.compareTo(b) <= 0 ? a : b);
                }
            }
        }
        return intervals;
    }

    /**
     * @param unchanged upstreams of the set this one replaces whose definitions are the same, by id: each is kept
     *                  ({@link #reusable}), with its checker from {@code checkersOf}
     */
    private static Upstreams build(List<UpstreamDefinition> definitions, PoolListener listener,
                                   NameResolver resolver, Map<String, List<InetAddress>> addresses,
                                   Duration lookupTimeout, Map<String, Upstream> unchanged,
                                   Map<String, HealthChecker> checkersOf,
                                   BiFunction<Endpoint, PoolSettings, UpstreamPool> poolFor) {
        Map<Endpoint, UpstreamPool> poolsByEndpoint = new LinkedHashMap<>();
        Map<String, Upstream> byId = new LinkedHashMap<>();
        Map<String, HealthChecker> checkers = new LinkedHashMap<>();
        for (UpstreamDefinition definition : definitions) {
            Upstream kept = reusable(unchanged.get(definition.id()), definition.settings(), poolsByEndpoint, poolFor);
            if (kept != null) {
                byId.put(definition.id(), kept);
                HealthChecker checker = checkersOf.get(definition.id());
                if (checker != null) {
                    checkers.put(definition.id(), checker);
                }
                continue;
            }
            List<UpstreamMember> members = members(definition, addresses, List.of(),
                    e -> poolsByEndpoint.computeIfAbsent(e, key -> poolFor.apply(key, definition.settings())));
            Upstream upstream = new Upstream(definition.id(), members, definition.balancing(), System::nanoTime);
            byId.put(definition.id(), upstream);
            if (definition.balancing().healthCheck() != null) {
                checkers.put(definition.id(), new HealthChecker(upstream, definition.balancing().healthCheck(),
                        definition.settings()));
            }
        }
        return new Upstreams(byId, List.copyOf(definitions), checkers, List.copyOf(poolsByEndpoint.values()),
                listener, resolver, addresses, lookupTimeout);
    }

    /**
     * {@code previous} (an upstream whose definition did not change), when each of its members' pools is the one
     * this set gives that endpoint (registered here, as a new member's would be); null otherwise: an endpoint it
     * shares with an upstream earlier in the file whose pool settings changed has a new pool, and then the upstream
     * is made anew around it.
     */
    private static Upstream reusable(Upstream previous, PoolSettings settings,
                                     Map<Endpoint, UpstreamPool> poolsByEndpoint,
                                     BiFunction<Endpoint, PoolSettings, UpstreamPool> poolFor) {
        if (previous == null) {
            return null;
        }
        for (UpstreamMember m : previous.members()) {
            if (poolsByEndpoint.computeIfAbsent(m.endpoint(), key -> poolFor.apply(key, settings)) != m.pool()) {
                return null;
            }
        }
        return previous;
    }

    /**
     * The members of one upstream: each configured endpoint, or, for a host name being refreshed that has resolved,
     * one per address with the endpoint's weight. A member in {@code previous} with the same endpoint and weight is
     * kept as it is (its health verdict and ejection go on); others are made with the pool {@code poolFor} gives.
     */
    private static List<UpstreamMember> members(UpstreamDefinition d, Map<String, List<InetAddress>> addresses,
                                                List<UpstreamMember> previous,
                                                Function<Endpoint, UpstreamPool> poolFor) {
        List<UpstreamMember> out = new ArrayList<>();
        for (int i = 0; i < d.endpoints().size(); i++) {
            Endpoint configured = d.endpoints().get(i);
            int weight = d.balancing().weights().get(i);
            List<InetAddress> resolved = d.refreshesDns() && configured.hasHostName()
                    ? addresses.get(configured.host()) : null;
            List<Endpoint> actual = resolved == null ? List.of(configured)
                    : resolved.stream().map(configured::at).toList();
            for (Endpoint e : actual) {
                UpstreamMember same = null;
                for (UpstreamMember m : previous) {
                    if (m.endpoint().equals(e) && m.weight() == weight) {
                        same = m;
                        break;
                    }
                }
                out.add(same != null ? same : new UpstreamMember(poolFor.apply(e), weight));
            }
        }
        return out;
    }

    /** A refreshed name's addresses changed (its DNS thread): the upstreams naming it follow. */
    private void resolved(String name, List<InetAddress> now) {
        List<UpstreamPool> drained;
        membership.lock();
        try {
            if (retired) {
                return;
            }
            addresses.put(name, now);
            Map<Endpoint, UpstreamPool> byEndpoint = new HashMap<>();
            pools.forEach(p -> byEndpoint.put(p.endpoint(), p));
            for (UpstreamDefinition d : definitions) {
                if (!d.refreshesDns() || d.endpoints().stream().noneMatch(e -> e.host().equals(name))) {
                    continue;
                }
                Upstream u = upstreams.get(d.id());
                u.replaceMembers(members(d, addresses, u.members(), e -> byEndpoint.computeIfAbsent(e,
                        key -> new UpstreamPool(key, d.settings(), listener))));
                HealthChecker checker = healthCheckers.get(d.id());
                if (checker != null) {
                    checker.membersChanged();
                }
            }
            Set<UpstreamPool> used = new LinkedHashSet<>();
            upstreams.values().forEach(u -> u.members().forEach(m -> used.add(m.pool())));
            drained = pools.stream().filter(p -> !used.contains(p)).toList();
            pools = List.copyOf(used);
        } finally {
            membership.unlock();
        }
        drained.forEach(UpstreamPool::drain);
    }

    private void start() {
        sweeper.start();
        healthCheckers.values().forEach(HealthChecker::start);
        if (dns != null) {
            dns.start();
        }
    }

    /**
     * Stops the DNS refresh, the health checks (but those {@code successor} took over with their upstreams) and the
     * sweeper; the pools are left as they are. Idempotent.
     */
    private void stopBackground(Upstreams successor) {
        membership.lock();
        try {
            retired = true;
        } finally {
            membership.unlock();
        }
        if (dns != null) {
            dns.stop();
        }
        for (HealthChecker checker : healthCheckers.values()) {
            if (successor == null || !successor.healthCheckers.containsValue(checker)) {
                checker.stop();
            }
        }
        sweeper.stop();
    }

    /** The upstream with this id, or null. */
    public Upstream get(String id) {
        return upstreams.get(id);
    }

    public Collection<Upstream> all() {
        return upstreams.values();
    }

    /** Every distinct pool the members use now, each once even when several upstreams share it. */
    public List<UpstreamPool> pools() {
        return pools;
    }

    /**
     * Each refreshed host name with the addresses it resolves to now (sorted); a name that has not resolved yet maps
     * to an empty list. For {@code /routes}.
     */
    public Map<String, List<InetAddress>> resolvedNames() {
        membership.lock();
        try {
            Map<String, List<InetAddress>> out = new LinkedHashMap<>();
            for (String name : refreshIntervals(definitions).keySet()) {
                out.put(name, addresses.getOrDefault(name, List.of()));
            }
            return out;
        } finally {
            membership.unlock();
        }
    }

    /** The sweeper's thread, for tests that check it ends. */
    Thread sweeperThread() {
        return sweeper.thread();
    }

    /** The health-check threads of one upstream now, for tests; empty without a health check. */
    List<Thread> healthCheckThreads(String id) {
        HealthChecker checker = healthCheckers.get(id);
        return checker == null ? List.of() : checker.threads();
    }

    /** The DNS threads, for tests that check they end; empty when no name is refreshed. */
    List<Thread> dnsThreads() {
        return dns == null ? List.of() : dns.threads();
    }

    /** Stops the background threads and closes every pool: idle connections now, in-use ones when released. */
    public void close() {
        stopBackground(null);
        pools.forEach(UpstreamPool::close);
    }
}
