package io.loomgate.upstream;

import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The power of two choices (Mitzenmacher; Finagle's and Envoy's least-request): draws two different candidates at
 * random, in proportion to their weights, and takes the one with fewer attempts in flight per unit of weight. It
 * avoids a slow or stuck endpoint, whose requests pile up in flight, without the herd that "always the least loaded"
 * causes when every request reads the same counts at once. Lock-free; reads each endpoint's in-flight count once.
 */
final class LeastRequestBalancer implements LoadBalancer {
    @Override
    public UpstreamMember pick(List<UpstreamMember> candidates, long hash) {
        int n = candidates.size();
        if (n == 1) {
            return candidates.get(0);
        }
        ThreadLocalRandom random = ThreadLocalRandom.current();
        UpstreamMember a;
        UpstreamMember b;
        int total = LoadBalancer.totalWeight(candidates);
        if (total == n) { // equal weights: two distinct indices
            int i = random.nextInt(n);
            int j = random.nextInt(n - 1);
            a = candidates.get(i);
            b = candidates.get(j >= i ? j + 1 : j);
        } else { // the second draw is among the others, still in proportion to their weights
            a = LoadBalancer.atWeight(candidates, random.nextInt(total));
            b = otherAtWeight(candidates, a, random.nextInt(total - a.weight()));
        }
        // fewer in flight per unit of weight wins: (inA + 1) / wA <= (inB + 1) / wB, cross-multiplied
        long loadA = (long) (a.inFlight() + 1) * b.weight();
        long loadB = (long) (b.inFlight() + 1) * a.weight();
        return loadB < loadA ? b : a;
    }

    /** The candidate at {@code point} on the line of the weights of every candidate but {@code skip}. */
    private static UpstreamMember otherAtWeight(List<UpstreamMember> candidates, UpstreamMember skip, int point) {
        UpstreamMember last = null;
        for (UpstreamMember m : candidates) {
            if (m == skip) {
                continue;
            }
            last = m;
            point -= m.weight();
            if (point < 0) {
                return m;
            }
        }
        return last;
    }
}
