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
    private final LocalStore store = new LocalStore(now::get);
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
        assertThat(store.size()).isEqualTo(1001);
        now.addAndGet(2 * SECOND); // now 5 s idle, past 4 s
        store.consume("fresh", limit);
        assertThat(store.size()).isEqualTo(1);
        // A forgotten key starts full again, which is what it would have been.
        assertThat(countAllowed("client-7", 50)).isEqualTo(20);
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
