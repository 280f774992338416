package io.loomgate.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The local token bucket on a clock the test steps: exact maths, refill, expiry, and no lost update under load. */
class LocalStoreTest {
    private static final long SECOND = 1_000_000_000L;
    private final AtomicLong now = new AtomicLong(123 * SECOND);
    private final AtomicLong evictions = new AtomicLong();
    private final LocalStore store = new LocalStore(now::get, 100_000);
    private final RateLimit limit = new RateLimit(10, 20, 1);

    @Test
    void aFullBucketGivesExactlyItsCapacityThenRefusesWithNothingLeft() {
        List<Decision> decisions = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            decisions.add(store.consume("alice", limit));
        }
        assertThat(decisions.subList(0, 20)).allMatch(Decision::allowed);
        assertThat(decisions.subList(20, 50)).noneMatch(Decision::allowed);
        assertThat(decisions.get(0).remaining()).isEqualTo(19);
        assertThat(decisions.get(19).remaining()).isZero();
        assertThat(decisions.get(49).remaining()).isZero();
        assertThat(decisions.get(49).retryAfterSeconds(limit)).isEqualTo(1);
    }

    @Test
    void tokensComeBackAtTheReplenishRateAndNeverBeyondTheCapacity() {
        drain("alice");
        now.addAndGet(SECOND / 10);
        assertThat(store.consume("alice", limit).allowed()).isTrue();
        assertThat(store.consume("alice", limit).allowed()).isFalse();
        now.addAndGet(SECOND);
        assertThat(countAllowed("alice", 50)).isEqualTo(10);
        now.addAndGet(3600 * SECOND);
        assertThat(countAllowed("alice", 50)).isEqualTo(20);
    }

    @Test
    void eachKeyHasItsOwnBucket() {
        drain("alice");
        assertThat(store.consume("alice", limit).allowed()).isFalse();
        assertThat(countAllowed("bob", 50)).isEqualTo(20);
    }

    @Test
    void aRequestCostsRequestedTokens() {
        RateLimit costly = new RateLimit(10, 20, 3);
        assertThat(countAllowedWith(costly, "alice", 50)).isEqualTo(6);
        Decision refused = store.consume("alice", costly);
        assertThat(refused.remaining()).isEqualTo(2);
        assertThat(refused.retryAfterSeconds(costly)).isEqualTo(1);
    }

    @Test
    void idleKeysAreForgottenAfterTwiceTheFillTimeSoMemoryStaysBounded() {
        for (int i = 0; i < 1000; i++) {
            store.consume("client-" + i, limit);
        }
        assertThat(store.size()).isEqualTo(1000);
        now.addAndGet(3 * SECOND); // fill time 2 s: these keys are still within their 4 s
        store.consume("fresh", limit);
        store.sweep();
        assertThat(store.size()).isEqualTo(1001);
        now.addAndGet(2 * SECOND); // now 5 s idle, past 4 s
        assertThat(store.consume("fresh", limit).evicted()).as("expiry is not eviction").isZero();
        store.sweep();
        assertThat(store.size()).isEqualTo(1);
        // A forgotten key starts full again, which is what it would have been.
        assertThat(countAllowed("client-7", 50)).isEqualTo(20);
    }

    @Test
    void aFloodOfNewKeysNeverHoldsMoreThanTheCapacityAndCountsEachEviction() {
        LocalStore small = new LocalStore(now::get, 100);
        for (int i = 0; i < 10_000; i++) {
            evictions.addAndGet(small.consume("flood-" + i, limit).evicted());
            assertThat(small.size()).isLessThanOrEqualTo(100);
        }
        assertThat(small.size()).isEqualTo(100);
        assertThat(evictions).hasValue(9_900);
    }

    @Test
    void theLeastRecentlyUsedKeyIsTheOneEvictedSoAnActiveClientKeepsItsEmptyBucket() {
        LocalStore small = new LocalStore(now::get, 3);
        for (int i = 0; i < 20; i++) {
            small.consume("active", limit); // drained: 20 tokens taken
        }
        small.consume("idle-1", limit);
        small.consume("idle-2", limit);
        small.consume("active", limit);
        // new-1 pushes out idle-1, not the older but recently used 'active'
        evictions.addAndGet(small.consume("new-1", limit).evicted());
        assertThat(evictions).hasValue(1);
        assertThat(small.consume("active", limit).allowed()).as("active kept its empty bucket").isFalse();
        for (int i = 0; i < 50; i++) { // a flood of new keys, while 'active' keeps asking
            small.consume("new-" + (i + 2), limit);
            assertThat(small.consume("active", limit).allowed()).isFalse();
        }
        assertThat(small.size()).isEqualTo(3);
    }

    @Test
    void aSweptStoreDropsIdleKeysOnItsOwnScheduleWithNoRequestComing() {
        LocalStore swept = LocalStore.swept(System::nanoTime, 1000);
        try {
            RateLimit quick = new RateLimit(100, 100, 1); // full again after 1 s: forgotten after the 1 s minimum
            for (int i = 0; i < 500; i++) {
                swept.consume("idle-" + i, quick);
            }
            assertThat(swept.size()).isEqualTo(500);
            long deadline = System.nanoTime() + 30 * SECOND; // generous: the machine is shared
            while (swept.size() > 0 && System.nanoTime() - deadline < 0) {
                java.util.concurrent.locks.LockSupport.parkNanos(SECOND / 20);
            }
            assertThat(swept.size()).as("keys left with no request since").isZero();
        } finally {
            swept.close();
        }
    }

    @Test
    void twoHundredThreadsAtOnceGetExactlyTheCapacityBetweenThem() throws Exception {
        RateLimit big = new RateLimit(1, 5000, 1);
        int threads = 200;
        int perThread = 50;
        CountDownLatch start = new CountDownLatch(1);
        List<Future<Integer>> results = new ArrayList<>();
        try (ExecutorService pool = Executors.newFixedThreadPool(threads)) {
            for (int t = 0; t < threads; t++) {
                results.add(pool.submit(() -> {
                    start.await();
                    int allowed = 0;
                    for (int i = 0; i < perThread; i++) {
                        if (store.consume("shared", big).allowed()) {
                            allowed++;
                        }
                    }
                    return allowed;
                }));
            }
            start.countDown();
            int total = 0;
            for (Future<Integer> f : results) {
                total += f.get();
            }
            // 10,000 attempts on a frozen clock: exactly the 5,000 tokens, none lost, none spent twice.
            assertThat(total).isEqualTo(5000);
        }
    }

    private void drain(String key) {
        countAllowed(key, limit.burstCapacity());
    }

    private int countAllowed(String key, int attempts) {
        return countAllowedWith(limit, key, attempts);
    }

    private int countAllowedWith(RateLimit l, String key, int attempts) {
        int n = 0;
        for (int i = 0; i < attempts; i++) {
            if (store.consume(key, l).allowed()) {
                n++;
            }
        }
        return n;
    }
}
