package io.loomgate.upstream;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** What each balancer does with weights, load and keys, and how an upstream narrows the candidates. */
class BalancersTest {
    private static final RecordingPoolListener LISTENER = new RecordingPoolListener();

    private static UpstreamMember member(int lastOctet, int weight) {
        Endpoint e = new Endpoint("10.0.0." + lastOctet, 80);
        return new UpstreamMember(new UpstreamPool(e, PoolSettings.DEFAULTS, LISTENER), weight);
    }

    private static Map<UpstreamMember, Integer> count(LoadBalancer b, List<UpstreamMember> members, int picks) {
        Map<UpstreamMember, Integer> n = new HashMap<>();
        for (int i = 0; i < picks; i++) {
            n.merge(b.pick(members, i), 1, Integer::sum);
        }
        return n;
    }

    @Test
    void roundRobinGivesEachMemberAsManyTurnsAsItsWeight() {
        UpstreamMember a = member(1, 3);
        UpstreamMember b = member(2, 1);
        Map<UpstreamMember, Integer> n = count(new RoundRobinBalancer(), List.of(a, b), 400);
        assertThat(n).containsEntry(a, 300).containsEntry(b, 100);
    }

    @Test
    void randomFollowsTheWeights() {
        UpstreamMember a = member(1, 3);
        UpstreamMember b = member(2, 1);
        Map<UpstreamMember, Integer> n = count(new RandomBalancer(), List.of(a, b), 40_000);
        assertThat(n.get(a) / 40_000.0).isBetween(0.72, 0.78);
    }

    @Test
    void leastRequestAvoidsTheMemberWithRequestsPiledUp() {
        UpstreamMember fast1 = member(1, 1);
        UpstreamMember fast2 = member(2, 1);
        UpstreamMember slow = member(3, 1);
        for (int i = 0; i < 50; i++) {
            slow.pool().state().attemptStarted(); // a slow origin: its requests stay in flight
        }
        Map<UpstreamMember, Integer> n = count(new LeastRequestBalancer(), List.of(fast1, fast2, slow), 3000);
        // P2C picks the slow one only when both draws are the slow one, which distinct draws never are.
        assertThat(n.getOrDefault(slow, 0)).isZero();
        assertThat(n.get(fast1)).isBetween(1200, 1800);
    }

    @Test
    void leastRequestWeighsLoadByWeight() {
        UpstreamMember big = member(1, 4);
        UpstreamMember small = member(2, 1);
        for (int i = 0; i < 3; i++) {
            big.pool().state().attemptStarted(); // (3 + 1) / 4 = 1 per weight, against (0 + 1) / 1 = 1: a tie
        }
        big.pool().state().attemptStarted(); // now 5 / 4 > 1: the small one is less loaded per unit of weight
        Map<UpstreamMember, Integer> n = count(new LeastRequestBalancer(), List.of(big, small), 200);
        assertThat(n.get(small)).isEqualTo(200);
    }

    @Test
    void hashKeepsAKeyOnOneMemberAndMovesAboutOneNthWhenOneIsAdded() {
        List<UpstreamMember> three = List.of(member(1, 1), member(2, 1), member(3, 1));
        List<UpstreamMember> four = new ArrayList<>(three);
        four.add(member(4, 1));
        HashRingBalancer before = new HashRingBalancer(three);
        HashRingBalancer after = new HashRingBalancer(four);
        int keys = 10_000;
        int moved = 0;
        Map<UpstreamMember, Integer> share = new HashMap<>();
        for (int k = 0; k < keys; k++) {
            long h = Upstream.hash("user-" + k);
            UpstreamMember first = before.pick(three, h);
            assertThat(before.pick(three, h)).isSameAs(first); // sticky
            UpstreamMember later = after.pick(four, h);
            share.merge(first, 1, Integer::sum);
            if (later != first) {
                moved++;
                assertThat(later).as("a moved key goes to the new member only").isSameAs(four.get(3));
            }
        }
        assertThat(moved / (double) keys).isBetween(0.18, 0.32); // about 1/4
        share.values().forEach(s -> assertThat(s / (double) keys).isBetween(0.25, 0.42));
    }

    @Test
    void hashSkipsAMemberThatMayNotBeChosenAndComesBackToItAfter() {
        List<UpstreamMember> members = List.of(member(1, 1), member(2, 1), member(3, 1));
        HashRingBalancer ring = new HashRingBalancer(members);
        long h = Upstream.hash("alice");
        UpstreamMember owner = ring.pick(members, h);
        List<UpstreamMember> others = members.stream().filter(m -> m != owner).toList();
        assertThat(ring.pick(others, h)).isNotSameAs(owner).isIn(others);
        assertThat(ring.pick(members, h)).isSameAs(owner);
    }

    @Test
    void anUpstreamLeavesOutEjectedAndTriedMembersButNeverRunsDry() {
        AtomicLong now = new AtomicLong(1_000_000_000L);
        UpstreamMember a = member(1, 1);
        UpstreamMember b = member(2, 1);
        UpstreamMember c = member(3, 1);
        Balancing.OutlierDetection outliers = new Balancing.OutlierDetection(2, Duration.ofSeconds(10), 100);
        Balancing balancing = new Balancing(Balancing.Policy.ROUND_ROBIN, null, List.of(1, 1, 1), null, outliers);
        Upstream u = new Upstream("api", List.of(a, b, c), balancing, now::get);

        u.recordOutcome(a, false);
        assertThat(a.ejected(now.get())).as("one failure is below the threshold").isFalse();
        u.recordOutcome(a, false);
        assertThat(a.ejected(now.get())).isTrue();
        for (int i = 0; i < 10; i++) {
            assertThat(u.select(0, List.of())).isNotSameAs(a);
            assertThat(u.select(0, List.of(b))).isSameAs(c);
        }
        // every candidate out: panic, all of them again rather than nothing
        assertThat(u.select(0, List.of(b, c))).isSameAs(a);
        // the ejection ends after base × 1; a second ejection lasts base × 2
        now.addAndGet(Duration.ofSeconds(10).toNanos());
        assertThat(a.ejected(now.get())).isFalse();
        u.recordOutcome(a, false);
        u.recordOutcome(a, false);
        now.addAndGet(Duration.ofSeconds(15).toNanos());
        assertThat(a.ejected(now.get())).as("the second ejection lasts twice as long").isTrue();
        assertThat(a.timesEjected()).isEqualTo(2);
    }

    @Test
    void outlierDetectionNeverEjectsMoreThanItsShare() {
        AtomicLong now = new AtomicLong(5);
        UpstreamMember a = member(1, 1);
        UpstreamMember b = member(2, 1);
        Balancing.OutlierDetection outliers = new Balancing.OutlierDetection(1, Duration.ofSeconds(10), 50);
        Upstream u = new Upstream("api", List.of(a, b),
                new Balancing(Balancing.Policy.RANDOM, null, List.of(1, 1), null, outliers), now::get);
        u.recordOutcome(a, false);
        u.recordOutcome(b, false);
        assertThat(a.ejected(now.get())).isTrue();
        assertThat(b.ejected(now.get())).as("50%: the second of two stays in").isFalse();
    }

    @Test
    void aSuccessResetsTheFailuresInARow() {
        UpstreamMember a = member(1, 1);
        Upstream u = new Upstream("api", List.of(a, member(2, 1)), new Balancing(Balancing.Policy.RANDOM, null,
                List.of(1, 1), null, new Balancing.OutlierDetection(2, Duration.ofSeconds(1), 50)), System::nanoTime);
        u.recordOutcome(a, false);
        u.recordOutcome(a, true);
        u.recordOutcome(a, false);
        assertThat(a.ejected(System.nanoTime())).isFalse();
    }

    @Test
    void healthVerdictFlipsOnlyAfterTheThresholds() {
        UpstreamMember a = member(1, 1);
        Balancing.HealthCheck check = new Balancing.HealthCheck("/health", Duration.ofSeconds(1), Duration.ofSeconds(1),
                2, 3, 200, 399);
        assertThat(a.checked(false, check)).isFalse();
        assertThat(a.checked(false, check)).isFalse();
        assertThat(a.checked(true, check)).isFalse(); // the streak starts over
        a.checked(false, check);
        a.checked(false, check);
        assertThat(a.checked(false, check)).isTrue();
        assertThat(a.healthy()).isFalse();
        assertThat(a.checked(true, check)).isFalse();
        assertThat(a.checked(true, check)).isTrue();
        assertThat(a.healthy()).isTrue();
    }
}
