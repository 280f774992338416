package io.loomgate.upstream;

import java.util.List;

/** Answers "which endpoint now": picks one of an upstream's members for the next attempt. Thread-safe. */
interface LoadBalancer {

    /**
     * One of {@code candidates}: never empty, and already free of the members that may not be chosen now
     * (unhealthy, ejected, tried already), unless that would have left none.
     *
     * @param hash the request's key hashed ({@link Upstream#hash}), read only by the consistent-hash balancer
     */
    UpstreamMember pick(List<UpstreamMember> candidates, long hash);

    static LoadBalancer of(Balancing.Policy policy, List<UpstreamMember> members) {
        return switch (policy) {
            case LEAST_REQUEST -> new LeastRequestBalancer();
            case ROUND_ROBIN -> new RoundRobinBalancer();
            case RANDOM -> new RandomBalancer();
            case HASH -> new HashRingBalancer(members);
        };
    }

    /** The sum of the candidates' weights. */
    static int totalWeight(List<UpstreamMember> candidates) {
        int total = 0;
        for (UpstreamMember m : candidates) {
            total += m.weight();
        }
        return total;
    }

    /** The candidate at {@code point} (0 ≤ point < total weight) on the line of their weights laid end to end. */
    static UpstreamMember atWeight(List<UpstreamMember> candidates, int point) {
        for (UpstreamMember m : candidates) {
            point -= m.weight();
            if (point < 0) {
                return m;
            }
        }
        return candidates.get(candidates.size() - 1);
    }
}
