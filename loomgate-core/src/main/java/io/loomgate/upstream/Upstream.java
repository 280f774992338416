package io.loomgate.upstream;

import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * Answers "which endpoints exist, and which one now": a named set of members (one per endpoint: its pool, weight and
 * health as this upstream sees it), a load balancer to choose among the ones that may take traffic, and the outlier
 * bookkeeping that decides which may. The pools may be shared with other upstreams naming the same endpoint.
 * Thread-safe; the member list never changes.
 *
 * <p>Selection never leaves a route without capacity: when every member is unhealthy or ejected, all of them are
 * candidates again (Envoy's panic mode), since answering 503 for a route that may still work is worse than trying.
 */
public final class Upstream {
    private final String id;
    private final List<UpstreamMember> members;
    private final List<UpstreamPool> pools;
    private final List<Endpoint> endpoints;
    private final Balancing balancing;
    private final LoadBalancer balancer;
    private final LongSupplier nanoTime;

    Upstream(String id, List<UpstreamMember> members, Balancing balancing, LongSupplier nanoTime) {
        if (members.isEmpty()) {
            throw new IllegalArgumentException("upstream '" + id + "' has no endpoints");
        }
        this.id = id;
        this.members = List.copyOf(members);
        this.pools = this.members.stream().map(UpstreamMember::pool).toList();
        this.endpoints = this.pools.stream().map(UpstreamPool::endpoint).toList();
        this.balancing = balancing;
        this.balancer = LoadBalancer.of(balancing.policy(), this.members);
        this.nanoTime = nanoTime;
    }

    public String id() {
        return id;
    }

    public Balancing balancing() {
        return balancing;
    }

    /** The member for the next request, with no key and nothing tried yet. */
    public UpstreamMember select() {
        return select(0, List.of());
    }

    /**
     * The member for the next attempt: among those that are healthy, not ejected and not in {@code tried}; if that
     * leaves none, among those not tried (panic: all are bad); if every member was tried, among all of them.
     *
     * @param hash  the request's key through {@link #hash}, for the consistent-hash balancer; anything otherwise
     * @param tried members earlier attempts of this exchange used
     */
    public UpstreamMember select(long hash, List<UpstreamMember> tried) {
        long now = nanoTime.getAsLong();
        List<UpstreamMember> candidates = null; // null while every member qualifies: the common case allocates nothing
        for (int i = 0; i < members.size(); i++) {
            UpstreamMember m = members.get(i);
            boolean ok = m.available(now) && !tried.contains(m);
            if (!ok && candidates == null) {
                candidates = new ArrayList<>(members.subList(0, i));
            } else if (ok && candidates != null) {
                candidates.add(m);
            }
        }
        if (candidates == null) {
            return balancer.pick(members, hash);
        }
        if (candidates.isEmpty()) { // panic: every untried member is unhealthy or ejected
            for (UpstreamMember m : members) {
                if (!tried.contains(m)) {
                    candidates.add(m);
                }
            }
        }
        return balancer.pick(candidates.isEmpty() ? members : candidates, hash);
    }

    /** A request key hashed for {@link #select(long, List)}: stable across processes and restarts. */
    public static long hash(String key) {
        return HashRingBalancer.hash(key);
    }

    /**
     * Feeds passive outlier detection with one attempt's outcome. A failure is a connect error, a reset, a timeout,
     * or a 502/503/504 from the origin; enough in a row eject the member unless that would put more than the allowed
     * share of members out at once. Without outlier detection this does nothing.
     */
    public void recordOutcome(UpstreamMember member, boolean success) {
        Balancing.OutlierDetection policy = balancing.outliers();
        if (policy == null) {
            return;
        }
        if (success) {
            member.succeeded();
            return;
        }
        if (member.failed() < policy.consecutiveFailures()) {
            return;
        }
        long now = nanoTime.getAsLong();
        int ejected = 0;
        for (UpstreamMember m : members) {
            if (m.ejected(now)) {
                ejected++;
            }
        }
        // Envoy's rule: eject while the share already out is below the limit (so one of two may go at 50%).
        if (ejected * 100 < policy.maxEjectionPercent() * members.size()) {
            member.eject(now, policy);
        }
    }

    public List<UpstreamMember> members() {
        return members;
    }

    /** One pool per endpoint, in the order the definition lists the endpoints. */
    public List<UpstreamPool> pools() {
        return pools;
    }

    /** In the order the definition lists them. */
    public List<Endpoint> endpoints() {
        return endpoints;
    }

    /**
     * Closes every idle connection; in-use ones are closed when released. The pools are closed for every upstream
     * sharing them, so this is for shutdown: {@link Upstreams#close()} is the usual way.
     */
    public void close() {
        pools.forEach(UpstreamPool::close);
    }

    @Override
    public String toString() {
        return "upstream '" + id + "' " + members;
    }
}
