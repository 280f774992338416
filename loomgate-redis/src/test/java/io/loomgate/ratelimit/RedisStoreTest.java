package io.loomgate.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.loomgate.testkit.FreePorts;
import io.loomgate.testkit.RedisServer;
import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Protocol;

/** The Redis store against a real redis-server: SCG's keys and TTLs, server time, NOSCRIPT, password, failures. */
class RedisStoreTest {
    private static RedisServer redis;
    private static RedisStore store;
    private final RateLimit limit = new RateLimit(10, 20, 1);

    @BeforeAll
    static void start() throws Exception {
        redis = RedisServer.start();
        store = new RedisStore(settings(redis.url(), Duration.ofSeconds(2)));
    }

    @AfterAll
    static void stop() throws Exception {
        if (store != null) {
            store.close();
        }
        if (redis != null) {
            redis.close();
        }
    }

    private static RedisSettings settings(String url, Duration timeout) {
        return RedisSettings.parse(url, timeout, 4, null);
    }

    private Jedis direct() {
        return new Jedis("127.0.0.1", redis.port());
    }

    @Test
    void theBucketLivesUnderSpringCloudGatewaysTwoKeysWhichExpireOnTheirOwn() {
        Decision d = store.consume("alice", limit);
        assertThat(d.allowed()).isTrue();
        assertThat(d.remaining()).isEqualTo(19);
        try (Jedis j = direct()) {
            assertThat(j.get("request_rate_limiter.{alice}.tokens")).isEqualTo("19");
            long serverSecond = Long.parseLong(j.time().get(0));
            assertThat(Long.parseLong(j.get("request_rate_limiter.{alice}.timestamp")))
                    .isBetween(serverSecond - 5, serverSecond);
            // ttl = floor(2 * capacity / rate) = 4 s, as SCG's script sets it
            assertThat(j.ttl("request_rate_limiter.{alice}.tokens")).isBetween(1L, 4L);
            assertThat(j.ttl("request_rate_limiter.{alice}.timestamp")).isBetween(1L, 4L);
        }
    }

    @Test
    void withinOneServerSecondExactlyTheCapacityPasses() {
        // Whole seconds of server time, as SCG: start right after a second begins and check it did not end.
        for (int attempt = 0; attempt < 5; attempt++) {
            String key = "burst-" + attempt;
            long second = awaitFreshServerSecond();
            int allowed = 0;
            Decision last = null;
            for (int i = 0; i < 50; i++) {
                last = store.consume(key, limit);
                allowed += last.allowed() ? 1 : 0;
            }
            if (serverSecond() == second) {
                assertThat(allowed).isEqualTo(20);
                assertThat(last.allowed()).isFalse();
                assertThat(last.remaining()).isZero();
                return;
            }
        }
        throw new AssertionError("50 calls never fitted in one server second in 5 tries");
    }

    @Test
    void theNextServerSecondBringsBackExactlyTheReplenishRate() {
        for (int attempt = 0; attempt < 5; attempt++) {
            String key = "refill-" + attempt;
            long second = awaitFreshServerSecond();
            for (int i = 0; i < 25; i++) {
                store.consume(key, limit);
            }
            long next = awaitFreshServerSecond();
            int allowed = 0;
            for (int i = 0; i < 25; i++) {
                allowed += store.consume(key, limit).allowed() ? 1 : 0;
            }
            if (next == second + 1 && serverSecond() == next) {
                assertThat(allowed).isEqualTo(10);
                return;
            }
        }
        throw new AssertionError("never managed a burst within one server second and the next in 5 tries");
    }

    @Test
    void aStateWrittenBySpringCloudGatewayIsReadAsItsOwn() {
        try (Jedis j = direct()) {
            long now = Long.parseLong(j.time().get(0));
            j.setex("request_rate_limiter.{scg-client}.tokens", 4, "3");
            j.setex("request_rate_limiter.{scg-client}.timestamp", 4, Long.toString(now + 60));
        }
        // A timestamp ahead of the server (a clock in the future) refills nothing: 3 tokens, then refused.
        assertThat(store.consume("scg-client", limit).remaining()).isEqualTo(2);
        store.consume("scg-client", limit);
        store.consume("scg-client", limit);
        assertThat(store.consume("scg-client", limit).allowed()).isFalse();
    }

    @Test
    void theScriptIsLoadedAgainAfterRedisForgetsIt() {
        store.consume("before-flush", limit);
        try (Jedis j = direct()) {
            assertThat(j.scriptExists(new String(RedisStore.SCRIPT_SHA))).isTrue();
            j.scriptFlush();
            assertThat(j.scriptExists(new String(RedisStore.SCRIPT_SHA))).isFalse();
        }
        assertThat(store.consume("after-flush", limit).allowed()).isTrue();
        try (Jedis j = direct()) {
            assertThat(j.scriptExists(new String(RedisStore.SCRIPT_SHA))).isTrue();
        }
    }

    @Test
    void openingTheStoreDialsRedisAndLoadsTheScriptBeforeTheFirstRequest() throws Exception {
        // Session 55: the first request dialled, and on a loaded machine missed the 50 ms timeout (a 503 with deny).
        try (RedisServer fresh = RedisServer.start();
             RateLimitStore opened = new JedisStores().open(settings(fresh.url(), Duration.ofMillis(500)));
             Jedis j = new Jedis("127.0.0.1", fresh.port())) {
            assertThat(j.scriptExists(new String(RedisStore.SCRIPT_SHA))).as("the script, loaded").isTrue();
            assertThat(j.clientList()).as("a pooled connection of the store's").contains("name=loomgate");
        }
    }

    @Test
    void aPasswordInTheUrlIsSent() throws Exception {
        try (RedisServer locked = RedisServer.start("--requirepass", "s3cr:t");
             RedisStore withPassword = new RedisStore(settings("redis://:s3cr%3At@127.0.0.1:" + locked.port(),
                     Duration.ofSeconds(2)));
             RedisStore without = new RedisStore(settings(locked.url(), Duration.ofSeconds(2)))) {
            assertThat(withPassword.consume("k", limit).allowed()).isTrue();
            assertThatThrownBy(() -> without.consume("k", limit)).isInstanceOf(StoreUnavailableException.class)
                    .hasMessageContaining("NOAUTH");
        }
    }

    @Test
    void aRedisThatIsNotThereFailsWithinTheTimeout() throws Exception {
        int closedPort = FreePorts.refused();
        try (RedisStore nowhere = new RedisStore(settings("redis://127.0.0.1:" + closedPort,
                Duration.ofMillis(200)))) {
            assertThatThrownBy(() -> nowhere.consume("k", limit)).isInstanceOf(StoreUnavailableException.class);
        }
    }

    @Test
    void aRedisSlowerThanTheTimeoutFailsAfterTheTimeout() {
        try (RedisStore quick = new RedisStore(settings(redis.url(), Duration.ofMillis(100)))) {
            quick.consume("warm", limit);
            try (Jedis j = direct()) {
                // The server holds every client's writes, the store's script among them, for 20 s: far past the
                // bound below, so an answer the server sent cannot pass for the timeout on a loaded machine (it was
                // a 1 s pause against a 0.9 s bound). Reads still run, so UNPAUSE ends it for the tests after.
                j.sendCommand(Protocol.Command.CLIENT, "PAUSE", "20000", "WRITE");
            }
            try {
                long t0 = System.nanoTime();
                assertThatThrownBy(() -> quick.consume("slow", limit)).isInstanceOf(StoreUnavailableException.class);
                assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(10));
            } finally {
                try (Jedis j = direct()) {
                    j.sendCommand(Protocol.Command.CLIENT, "UNPAUSE");
                }
            }
        }
    }

    private long serverSecond() {
        try (Jedis j = direct()) {
            return Long.parseLong(j.time().get(0));
        }
    }

    private long awaitFreshServerSecond() {
        try (Jedis j = direct()) {
            long start = Long.parseLong(j.time().get(0));
            long deadline = System.nanoTime() + 3_000_000_000L;
            while (System.nanoTime() < deadline) {
                long s = Long.parseLong(j.time().get(0));
                if (s != start) {
                    return s;
                }
                LockSupport.parkNanos(2_000_000);
            }
        }
        throw new AssertionError("the Redis server's clock did not move within 3 s");
    }
}
