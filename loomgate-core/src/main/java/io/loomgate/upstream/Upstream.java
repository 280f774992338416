package io.loomgate.upstream;

import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * Answers "which endpoints exist, and which one now": a named set of members (one per endpoint: its pool, weight and
 * health as this upstream sees it), a load balancer to choose among the ones that may take traffic, and the outlier
 * bookkeeping that decides which may. The pools may be shared with other upstreams naming the same endpoint.
 * Thread-safe.
 *
 * <p>The members change only when a host name's addresses change ({@link DnsRefresh}): the new list and a balancer
 * built for it (a hash ring is rebuilt, so about 1/N of the keys move) are published together in one volatile write,
 * and a request reads them once, so it never mixes two lists. Members of endpoints that stay are the same objects,
 * keeping their health verdict and ejection. A live reload that leaves the upstream's definition as it was keeps this
 * object itself ({@link Upstreams#reconcile}).
 *
 * <p>Selection never leaves a route without capacity: when every member is unhealthy or ejected, all of them are
 * candidates again (Envoy's panic mode), since answering 503 for a route that may still work is worse than trying.
 */
public final class Upstream {
    private final String id;
    private final Balancing balancing;
    private final LongSupplier nanoTime;
    private volatile Members current;

    /** One generation of members with the balancer made for exactly them. */
    private record Members(List<UpstreamMember> list, LoadBalancer balancer) {
    }

    Upstream(String id, List<UpstreamMember> members, Balancing balancing, LongSupplier nanoTime) {
        this.id = id;
        this.balancing = balancing;
        this.nanoTime = nanoTime;
        this.current = generation(members);
    }

    private Members generation(List<UpstreamMember> members) {
        if (members.isEmpty()) {
            throw new IllegalArgumentException("upstream '" + id + "' has no endpoints");
        }
        List<UpstreamMember> list = List.copyOf(members);
        return new Members(list, LoadBalancer.of(balancing.policy(), list));
    }

    /**
     * Serves these members from now on (a DNS change); requests that already chose a member finish with it. Called
     * by {@link Upstreams} only, under its membership lock.
     */
    void replaceMembers(List<UpstreamMember> members) {
        current = generation(members);
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
        Members generation = current;
        List<UpstreamMember> members = generation.list();
        LoadBalancer balancer = generation.balancer();
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
        List<UpstreamMember> members = current.list();
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

    /** The members serving now: one per endpoint, a host name's addresses in place of the name. */
    public List<UpstreamMember> members() {
        return current.list();
    }

    /** One pool per member, in the order of {@link #members()}. */
    public List<UpstreamPool> pools() {
        return current.list().stream().map(UpstreamMember::pool).toList();
    }

    /** The endpoints of {@link #members()}, in their order. */
    public List<Endpoint> endpoints() {
        return current.list().stream().map(UpstreamMember::endpoint).toList();
    }

    /**
     * Closes every idle connection; in-use ones are closed when released. The pools are closed for every upstream
     * sharing them, so this is for shutdown: {@link Upstreams#close()} is the usual way.
     */
    public void close() {
        pools().forEach(UpstreamPool::close);
    }

    @Override
    public String toString() {
        return "upstream '" + id + "' " + current.list();
    }
}
