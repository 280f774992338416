package io.loomgate.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.filter.GatewayFilter;
import io.loomgate.testkit.FreePorts;
import io.loomgate.testkit.TestExchange;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The filter on its own: what each key resolver reads, the headers both ways, and a failing Redis in both modes. */
class RequestRateLimiterFilterTest {
    private final AtomicLong now = new AtomicLong();
    private final List<String> events = new ArrayList<>();
    private final RateLimitListener recording = new RateLimitListener() {
        @Override
        public void decided(String routeId, Outcome outcome) {
            events.add(routeId + ":" + outcome);
        }

        @Override
        public void storeFailed(String store) {
            events.add("failed:" + store);
        }
    };

    private GatewayFilter filter(RedisSettings redis, String... args) {
        Map<String, String> a = new LinkedHashMap<>();
        a.put("replenish-rate", "1");
        a.put("burst-capacity", "2");
        for (int i = 0; i < args.length; i += 2) {
            a.put(args[i], args[i + 1]);
        }
        return new RateLimiting(redis, recording, now::get).filterFactory().create(a);
    }

    private static TestExchange run(GatewayFilter f, TestExchange x) throws Exception {
        f.filter(x, TestExchange.origin());
        return x;
    }

    @Test
    void underTheLimitTheOriginsResponseCarriesTheLimitHeaders() throws Exception {
        TestExchange x = run(filter(null), TestExchange.get("/a"));
        assertThat(x.localReplies).isZero();
        assertThat(x.response().headers().first("X-Origin")).isEqualTo("yes");
        assertThat(x.response().headers().first("X-RateLimit-Remaining")).isEqualTo("1");
        assertThat(x.response().headers().first("X-RateLimit-Replenish-Rate")).isEqualTo("1");
        assertThat(x.response().headers().first("X-RateLimit-Burst-Capacity")).isEqualTo("2");
        assertThat(x.response().headers().first("X-RateLimit-Requested-Tokens")).isEqualTo("1");
        assertThat(events).containsExactly("test-route:ALLOWED");
    }

    @Test
    void overTheLimitTheAnswerIs429WithRetryAfterAndTheOriginIsNotCalled() throws Exception {
        GatewayFilter f = filter(null, "requested-tokens", "2");
        run(f, TestExchange.get("/a"));
        TestExchange x = run(f, TestExchange.get("/a"));
        assertThat(x.localReplies).isEqualTo(1);
        assertThat(x.response().status()).isEqualTo(429);
        assertThat(x.response().headers().first("X-Origin")).isNull();
        assertThat(x.response().headers().first("X-RateLimit-Remaining")).isEqualTo("0");
        assertThat(x.response().headers().first("X-RateLimit-Requested-Tokens")).isEqualTo("2");
        // 2 tokens missing at 1 token/s
        assertThat(x.response().headers().first("Retry-After")).isEqualTo("2");
        assertThat(events).containsExactly("test-route:ALLOWED", "test-route:LIMITED");
    }

    @Test
    void clientIpKeysByThePeerAddress() throws Exception {
        GatewayFilter f = filter(null, "key-resolver", "client-ip");
        InetSocketAddress a = new InetSocketAddress("10.0.0.1", 1000);
        InetSocketAddress b = new InetSocketAddress("10.0.0.2", 1000);
        run(f, TestExchange.get("/").remoteAddress(a));
        run(f, TestExchange.get("/").remoteAddress(new InetSocketAddress("10.0.0.1", 2000)));
        assertThat(run(f, TestExchange.get("/").remoteAddress(a)).response().status()).isEqualTo(429);
        assertThat(run(f, TestExchange.get("/").remoteAddress(b)).response().status()).isEqualTo(200);
    }

    @Test
    void pathKeysByThePathWithoutTheQuery() throws Exception {
        GatewayFilter f = filter(null, "key-resolver", "path");
        run(f, TestExchange.get("/p?x=1"));
        run(f, TestExchange.get("/p?x=2"));
        assertThat(run(f, TestExchange.get("/p")).response().status()).isEqualTo(429);
        assertThat(run(f, TestExchange.get("/q")).response().status()).isEqualTo(200);
    }

    @Test
    void routeKeysEveryRequestOfTheRouteTogether() throws Exception {
        GatewayFilter f = filter(null, "key-resolver", "route");
        run(f, TestExchange.get("/a"));
        run(f, TestExchange.get("/b"));
        assertThat(run(f, TestExchange.get("/c")).response().status()).isEqualTo(429);
    }

    @Test
    void principalKeysByWhatAnAuthFilterSetAndRefusesAnonymousRequests() throws Exception {
        GatewayFilter f = filter(null, "key-resolver", "principal");
        TestExchange anonymous = run(f, TestExchange.get("/a"));
        assertThat(anonymous.response().status()).isEqualTo(403);
        assertThat(anonymous.localReplies).isEqualTo(1);
        for (int i = 0; i < 2; i++) {
            TestExchange x = TestExchange.get("/a");
            x.setPrincipal("alice");
            run(f, x);
        }
        TestExchange third = TestExchange.get("/a");
        third.setPrincipal("alice");
        assertThat(run(f, third).response().status()).isEqualTo(429);
        TestExchange bob = TestExchange.get("/a");
        bob.setPrincipal("bob");
        assertThat(run(f, bob).response().status()).isEqualTo(200);
        assertThat(events.get(0)).isEqualTo("test-route:EMPTY_KEY");
    }

    @Test
    void headerKeysByTheFirstValueOfThatField() throws Exception {
        GatewayFilter f = filter(null, "key-resolver", "header:X-Api-Key");
        for (int i = 0; i < 2; i++) {
            TestExchange x = TestExchange.get("/a");
            x.request().headers().add("x-api-key", "k1");
            run(f, x);
        }
        TestExchange x = TestExchange.get("/a");
        x.request().headers().add("X-API-KEY", "k1");
        assertThat(run(f, x).response().status()).isEqualTo(429);
    }

    @Test
    void anUnreachableRedisInOpenModeLeavesTheDecisionToTheRoutesLocalBucket() throws Exception {
        RateLimiting rl = new RateLimiting(nowhere(), recording);
        try (rl) {
            GatewayFilter f = rl.filterFactory().create(Map.of("replenish-rate", "1", "burst-capacity", "2",
                    "store", "redis"));
            List<Integer> statuses = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                statuses.add(run(f, TestExchange.get("/a")).response().status());
            }
            // the clock is frozen: the local bucket of 2 holds, where failing open let all 4 through
            assertThat(statuses).containsExactly(200, 200, 429, 429);
        }
        assertThat(events).containsExactly("failed:redis", "test-route:ALLOWED", "failed:redis",
                "test-route:ALLOWED", "failed:redis", "test-route:LIMITED", "failed:redis", "test-route:LIMITED");
    }

    @Test
    void anUnreachableRedisInDenyModeRefusesWith503AndRetryAfter() throws Exception {
        RateLimiting rl = new RateLimiting(nowhere().withFailureMode(RedisSettings.FailureMode.DENY), recording);
        try (rl) {
            GatewayFilter f = rl.filterFactory().create(Map.of("replenish-rate", "1", "store", "redis"));
            TestExchange x = run(f, TestExchange.get("/a"));
            assertThat(x.localReplies).isEqualTo(1);
            assertThat(x.response().status()).isEqualTo(503);
            assertThat(x.response().headers().first("Retry-After")).isEqualTo("1");
            assertThat(x.response().headers().first("X-Origin")).isNull();
        }
        assertThat(events).containsExactly("failed:redis", "test-route:STORE_ERROR");
    }

    private static RedisSettings nowhere() throws Exception {
        int closedPort = FreePorts.refused();
        return RedisSettings.parse("redis://127.0.0.1:" + closedPort, Duration.ofMillis(200), 2, null);
    }

    @Test
    void everyRouteWithTheRedisStoreSharesOnePool() {
        RedisSettings r = RedisSettings.parse("redis://127.0.0.1:6379", Duration.ofMillis(50), 2, null);
        try (RateLimiting rl = new RateLimiting(r, RateLimitListener.NOOP)) {
            assertThat(rl.sharedRedis()).isSameAs(rl.sharedRedis());
            assertThat(rl.store("redis", 10)).isNotSameAs(rl.store("redis", 10));
            assertThat(rl.store("local", 10)).isNotSameAs(rl.store("local", 10));
        }
    }
}
