package io.loomgate.upstream;

import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/** Picks a candidate at random, in proportion to its weight. Stateless. */
final class RandomBalancer implements LoadBalancer {
    @Override
    public UpstreamMember pick(List<UpstreamMember> candidates, long hash) {
        if (candidates.size() == 1) {
            return candidates.get(0);
        }
        return LoadBalancer.atWeight(candidates,
                ThreadLocalRandom.current().nextInt(LoadBalancer.totalWeight(candidates)));
    }
}
