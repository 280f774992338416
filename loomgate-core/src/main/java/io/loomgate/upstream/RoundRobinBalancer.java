package io.loomgate.upstream;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Hands out the candidates in turn, each as many times per round as its weight. Lock-free: one shared counter. When
 * it overflows past {@link Integer#MAX_VALUE}, {@link Math#floorMod} keeps the index in range; the order skips once at
 * the wrap, which nobody can notice.
 */
final class RoundRobinBalancer implements LoadBalancer {
    private final AtomicInteger next;

    RoundRobinBalancer() {
        this(0);
    }

    /** Starts the counter at {@code start}; tests use it to cross the overflow. */
    RoundRobinBalancer(int start) {
        this.next = new AtomicInteger(start);
    }

    @Override
    public UpstreamMember pick(List<UpstreamMember> candidates, long hash) {
        int n = next.getAndIncrement();
        if (candidates.size() == 1) {
            return candidates.get(0);
        }
        int total = LoadBalancer.totalWeight(candidates);
        return total == candidates.size() ? candidates.get(Math.floorMod(n, total))
                : LoadBalancer.atWeight(candidates, Math.floorMod(n, total));
    }
}
