package io.loomgate.upstream;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

/**
 * Consistent hashing (Karger et al.; the "ketama" ring of nginx and Envoy's ring_hash): every member owns
 * {@link #POINTS_PER_WEIGHT} × weight points on a 64-bit ring, and a request goes to the owner of the first point at
 * or after its key's hash. One key therefore sticks to one endpoint, and adding or removing one of N endpoints moves
 * only about 1/N of the keys. A key whose owner may not be chosen now (unhealthy, ejected, tried) walks on to the
 * next point whose owner may: its keys spread over the others instead of all landing on one neighbour.
 *
 * <p>The ring is built once from one generation of the upstream's members and never changes (a DNS change builds
 * a new one: an endpoint's points depend only on its own label, so the others' stay where they were); immutable, so
 * thread-safe.
 */
final class HashRingBalancer implements LoadBalancer {
    static final int POINTS_PER_WEIGHT = 160;

    private final long[] points;
    private final UpstreamMember[] owners;
    private final int memberCount;

    HashRingBalancer(List<UpstreamMember> members) {
        int total = 0;
        for (UpstreamMember m : members) {
            total += m.weight() * POINTS_PER_WEIGHT;
        }
        long[] hashes = new long[total];
        UpstreamMember[] byPoint = new UpstreamMember[total];
        int k = 0;
        for (UpstreamMember m : members) {
            for (int i = 0; i < m.weight() * POINTS_PER_WEIGHT; i++) {
                hashes[k] = hash(m.endpoint().label() + "#" + i);
                byPoint[k] = m;
                k++;
            }
        }
        Integer[] order = new Integer[total];
        for (int i = 0; i < total; i++) {
            order[i] = i;
        }
        Arrays.sort(order, (x, y) -> Long.compareUnsigned(hashes[x], hashes[y]));
        this.points = new long[total];
        this.owners = new UpstreamMember[total];
        for (int i = 0; i < total; i++) {
            points[i] = hashes[order[i]];
            owners[i] = byPoint[order[i]];
        }
        this.memberCount = members.size();
    }

    @Override
    public UpstreamMember pick(List<UpstreamMember> candidates, long hash) {
        int start = firstPointAtOrAfter(hash);
        boolean everyone = candidates.size() == memberCount;
        for (int i = 0; i < points.length; i++) {
            UpstreamMember owner = owners[(start + i) % points.length];
            if (everyone || contains(candidates, owner)) {
                return owner;
            }
        }
        return candidates.get(0); // candidates not on the ring: cannot happen for members of this upstream
    }

    private int firstPointAtOrAfter(long hash) {
        int lo = 0;
        int hi = points.length;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (Long.compareUnsigned(points[mid], hash) < 0) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo == points.length ? 0 : lo;
    }

    private static boolean contains(List<UpstreamMember> candidates, UpstreamMember m) {
        for (UpstreamMember c : candidates) {
            if (c == m) {
                return true;
            }
        }
        return false;
    }

    /** 64-bit FNV-1a of the UTF-8 bytes, finished with MurmurHash3's fmix64 so nearby keys land far apart. */
    static long hash(String key) {
        long h = 0xcbf29ce484222325L;
        for (byte b : key.getBytes(StandardCharsets.UTF_8)) {
            h ^= b & 0xff;
            h *= 0x100000001b3L;
        }
        h ^= h >>> 33;
        h *= 0xff51afd7ed558ccdL;
        h ^= h >>> 33;
        h *= 0xc4ceb9fe1a85ec53L;
        h ^= h >>> 33;
        return h;
    }
}
