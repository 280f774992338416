package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.cli.Gateway;
import io.loomgate.observe.GatewayMetrics;
import io.loomgate.proxy.ExchangeListener;
import io.loomgate.server.ConnectionListener;
import io.loomgate.testkit.PrometheusText;
import io.loomgate.testkit.RawClient;
import io.loomgate.testkit.RedisServer;
import io.loomgate.testkit.RunningGateway;
import io.loomgate.testkit.TestOrigin;
import io.loomgate.upstream.PoolListener;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

/**
 * {@code RequestRateLimiter} with the Redis store, through a whole gateway and a real redis-server: the burst limit
 * with SCG's headers, and a Redis killed mid-test: requests keep flowing, held to the limit by the route's local
 * bucket ({@code failure-mode: open}), while the error counters rise, and once Redis is back it decides again, without
 * restarting the gateway.
 */
class RedisRateLimitTest {
    private static final String YAML = """
            redis:
              url: ${REDIS_URL}
              timeout: 250ms
            routes:
              - id: api
                uri: ${ORIGIN}
                predicates: [ "Path=/api/**" ]
                filters:
                  - name: RequestRateLimiter
                    args:
                      redis-rate-limiter.replenishRate: 10
                      redis-rate-limiter.burstCapacity: 20
                      redis-rate-limiter.requestedTokens: 1
                      key-resolver: header:X-Api-Key
            """;

    @Test
    void aBurstWithinOneServerSecondGetsExactlyTheCapacityAndThen429s() throws Exception {
        try (RedisServer redis = RedisServer.start(); TestOrigin origin = new TestOrigin();
             RunningGateway gw = RunningGateway.start(YAML, Map.of("ORIGIN", origin.uri(), "REDIS_URL", redis.url()));
             RateLimitClient client = new RateLimitClient(gw.port()); Jedis direct = direct(redis)) {
            // SCG's script counts whole seconds of the server's clock: start as one begins, check it did not end.
            for (int attempt = 0; attempt < 5; attempt++) {
                String key = "alice-" + attempt;
                long second = awaitFreshSecond(direct);
                int before = origin.requestCount();
                List<RawClient.Response> burst = client.burst("/api/items", key, 50);
                if (serverSecond(direct) != second) {
                    continue;
                }
                assertThat(burst.subList(0, 20)).allMatch(r -> r.status() == 200);
                assertThat(burst.subList(20, 50)).allMatch(r -> r.status() == 429);
                assertThat(origin.requestCount() - before).isEqualTo(20);
                assertThat(burst.get(0).header("X-RateLimit-Remaining")).isEqualTo("19");
                RawClient.Response limited = burst.get(49);
                assertThat(limited.header("X-RateLimit-Remaining")).isEqualTo("0");
                assertThat(limited.header("X-RateLimit-Replenish-Rate")).isEqualTo("10");
                assertThat(limited.header("X-RateLimit-Burst-Capacity")).isEqualTo("20");
                assertThat(limited.header("X-RateLimit-Requested-Tokens")).isEqualTo("1");
                assertThat(limited.header("Retry-After")).isEqualTo("1");
                assertThat(direct.exists("request_rate_limiter.{" + key + "}.tokens")).isTrue();
                assertThat(client.get("/api/items", "bob-" + attempt).status()).isEqualTo(200);
                return;
            }
            throw new AssertionError("no burst of 50 fitted in one server second in 5 tries");
        }
    }

    @Test
    void redisKilledMidTestLeavesTheLimitToTheLocalBucketCountsTheErrorsAndIsUsedAgainOnceBack() throws Exception {
        GatewayMetrics metrics = new GatewayMetrics();
        Gateway.Observers observers = new Gateway.Observers(ExchangeListener.NOOP, PoolListener.NOOP,
                ConnectionListener.NOOP, metrics.rateLimits());
        try (RedisServer redis = RedisServer.start(); TestOrigin origin = new TestOrigin();
             RunningGateway gw = RunningGateway.start(YAML, Map.of("ORIGIN", origin.uri(), "REDIS_URL", redis.url()),
                     observers);
             RateLimitClient client = new RateLimitClient(gw.port())) {
            assertLimitHolds(client, "alice");
            assertThat(storeErrors(metrics)).isZero();

            redis.kill();
            // failure-mode: open (the default): the route's local bucket for the key decides meanwhile
            assertLimitHolds(client, "dave");
            double failed = storeErrors(metrics);
            assertThat(failed).isPositive();
            PrometheusText m = new PrometheusText(metrics.registry().scrape());
            assertThat(m.value("loomgate_ratelimit_requests_total", "route=api", "outcome=limited")).isPositive();

            redis.restart();
            // The gateway was not restarted: its pool dials the new server once the broken connection is dropped.
            long deadline = System.nanoTime() + 20_000_000_000L;
            try (Jedis direct = direct(redis)) {
                client.get("/api/items", "carol");
                while (!direct.exists("request_rate_limiter.{carol}.tokens") && System.nanoTime() < deadline) {
                    LockSupport.parkNanos(20_000_000);
                    client.get("/api/items", "carol");
                }
                assertThat(direct.exists("request_rate_limiter.{carol}.tokens")).isTrue();
                direct.del("request_rate_limiter.{carol}.tokens", "request_rate_limiter.{carol}.timestamp");
            }
            assertLimitHolds(client, "carol");
        }
    }

    /**
     * Sends requests until one is refused with 429 and checks that no more passed before it than the bucket could
     * hold: 20, plus 10 for each server second that began meanwhile (SCG's script refills in whole seconds).
     */
    private static void assertLimitHolds(RateLimitClient client, String key) throws Exception {
        long t0 = System.nanoTime();
        int passed = 0;
        while (true) {
            RawClient.Response r = client.get("/api/items", key);
            if (r.status() == 429) {
                break;
            }
            assertThat(r.status()).isEqualTo(200);
            passed++;
            assertThat(passed).as("requests passed without a 429").isLessThan(1000);
        }
        double seconds = (System.nanoTime() - t0) / 1e9;
        assertThat(passed).isBetween(1, 20 + 10 * ((int) Math.ceil(seconds) + 1));
    }

    private static double storeErrors(GatewayMetrics metrics) {
        return new PrometheusText(metrics.registry().scrape()).value("loomgate_ratelimit_store_errors_total",
                "store=redis");
    }

    private static Jedis direct(RedisServer redis) {
        return new Jedis("127.0.0.1", redis.port());
    }

    private static long serverSecond(Jedis j) {
        return Long.parseLong(j.time().get(0));
    }

    private static long awaitFreshSecond(Jedis j) {
        long start = serverSecond(j);
        long deadline = System.nanoTime() + 3_000_000_000L;
        while (System.nanoTime() < deadline) {
            long s = serverSecond(j);
            if (s != start) {
                return s;
            }
            LockSupport.parkNanos(2_000_000);
        }
        throw new AssertionError("the Redis server's clock did not move within 3 s");
    }
}
