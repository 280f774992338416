package io.loomgate.upstream;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Hands out the pools in turn. Lock-free: one shared counter. When it overflows past {@link Integer#MAX_VALUE},
 * {@link Math#floorMod} keeps the index in range; the order skips once at the wrap, which nobody can notice.
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
    public UpstreamPool pick(List<UpstreamPool> pools) {
        return pools.get(Math.floorMod(next.getAndIncrement(), pools.size()));
    }
}
