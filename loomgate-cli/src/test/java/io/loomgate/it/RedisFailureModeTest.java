package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
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
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.Jedis;

/**
 * The Redis store when Redis is too slow or gone (issue 35, item 6): the limited client's own flood from hundreds of
 * connections on one key must not open the gate (it let 28,206 requests through at 1 req/s), a stopped Redis is
 * refused ({@code failure-mode: deny}) or still limited locally ({@code open}), and the outage is logged at most once
 * per interval, with a count, however often the calls flap between failing and answering.
 */
class RedisFailureModeTest {
    private static final String YAML = """
            redis:
              url: ${REDIS_URL}
              failure-mode: ${MODE}
            routes:
              - id: api
                uri: ${ORIGIN}
                predicates: [ "Path=/api/**" ]
                filters:
                  - name: RequestRateLimiter
                    args:
                      redis-rate-limiter.replenishRate: ${RATE}
                      redis-rate-limiter.burstCapacity: ${RATE}
                      key-resolver: header:X-Api-Key
            """;
    /** The flood's gateway: Redis with its default timeout (50ms), no failure-mode (the default, open). */
    private static final String FLOOD_YAML = """
            redis:
              url: ${REDIS_URL}
            routes:
              - id: api
                uri: ${ORIGIN}
                predicates: [ "Path=/api/**" ]
                filters:
                  - name: RequestRateLimiter
                    args:
                      redis-rate-limiter.replenishRate: 1
                      redis-rate-limiter.burstCapacity: 1
                      key-resolver: header:X-Api-Key
            """;
    private static final int CONNECTIONS = 300;
    private static final Duration FLOOD = Duration.ofSeconds(6);

    @Test
    void aFloodOnOneKeyFromHundredsOfConnectionsPassesAboutTheLimitNotThousands() throws Exception {
        // In the finding, 500 connections made Redis calls miss their 50ms deadline now and then; each such request
        // passed. This machine cannot flood that hard, so Redis is made to stall as it did: CLIENT PAUSE 80 ms out
        // of every 100 ms, so calls flap between answering and timing out.
        GatewayMetrics metrics = new GatewayMetrics();
        ListAppender<ILoggingEvent> outageLines = capture("io.loomgate.ratelimit.OutageLog");
        try (RedisServer redis = RedisServer.start(); TestOrigin origin = new TestOrigin();
             RunningGateway gw = RunningGateway.start(FLOOD_YAML, Map.of("ORIGIN", origin.uri(),
                     "REDIS_URL", redis.url()), observers(metrics))) {
            AtomicInteger passed = new AtomicInteger();
            AtomicInteger answered = new AtomicInteger();
            long start = System.nanoTime();
            try (ExecutorService vt = Executors.newVirtualThreadPerTaskExecutor();
                 Jedis pauser = new Jedis("127.0.0.1", redis.port())) {
                Future<?> stalls = vt.submit(() -> {
                    while (System.nanoTime() - (start + FLOOD.toNanos()) < 0) {
                        pauser.clientPause(80);
                        LockSupport.parkNanos(Duration.ofMillis(100).toNanos());
                    }
                    return null;
                });
                List<Future<?>> clients = new ArrayList<>();
                for (int i = 0; i < CONNECTIONS; i++) {
                    clients.add(vt.submit(() -> {
                        flood(gw.port(), start + FLOOD.toNanos(), passed, answered);
                        return null;
                    }));
                }
                for (Future<?> f : clients) {
                    f.get();
                }
                stalls.get();
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            double failures = new PrometheusText(metrics.registry().scrape())
                    .value("loomgate_ratelimit_store_errors_total", "store=redis");
            String dials;
            try (Jedis direct = new Jedis("127.0.0.1", redis.port())) {
                dials = direct.info("stats").lines().filter(l -> l.startsWith("total_connections_received"))
                        .findFirst().orElse("?");
            }
            // 1 a second from Redis, and while Redis timed out, 1 a second from the local bucket: twice the limit
            // at worst, where failing open let every timed-out request through.
            assertThat(passed.get()).as("passed of %d answered in %.1f s, %.0f Redis failures, %s", answered.get(),
                    seconds, failures, dials).isBetween(1, 2 * ((int) Math.ceil(seconds) + 2));
            assertThat(answered.get()).as("the flood was a flood").isGreaterThan(300);
            assertThat(failures).as("Redis calls that missed the timeout").isPositive();
            // an outage line at most every 10 s, and after each at most one that Redis answers again
            long warnings = outageLines.list.stream().filter(l -> l.getLevel() == Level.WARN).count();
            assertThat(warnings).as("outage lines, at most one per 10 s")
                    .isLessThanOrEqualTo((int) Math.ceil(seconds / 10) + 1);
            assertThat(outageLines.list.size() - warnings).as("lines that Redis answers again")
                    .isLessThanOrEqualTo(warnings);
        } finally {
            release(outageLines, "io.loomgate.ratelimit.OutageLog");
        }
    }

    @Test
    void withRedisStoppedDenyRefusesWith503() throws Exception {
        try (RedisServer redis = RedisServer.start(); TestOrigin origin = new TestOrigin();
             RunningGateway gw = RunningGateway.start(YAML, Map.of("ORIGIN", origin.uri(),
                     "REDIS_URL", redis.url(), "MODE", "deny", "RATE", "10"));
             RateLimitClient client = new RateLimitClient(gw.port())) {
            assertThat(client.get("/api/a", "alice").status()).isEqualTo(200);
            redis.kill();
            int before = origin.requestCount();
            List<RawClient.Response> during = client.burst("/api/a", "alice", 5);
            assertThat(during).allSatisfy(r -> {
                assertThat(r.status()).isEqualTo(503);
                assertThat(r.header("Retry-After")).isEqualTo("1");
            });
            assertThat(origin.requestCount()).as("the origin saw none of them").isEqualTo(before);
        }
    }

    @Test
    void withRedisStoppedOpenStillEnforcesTheLocalLimit() throws Exception {
        ListAppender<ILoggingEvent> outageLines = capture("io.loomgate.ratelimit.OutageLog");
        try (RedisServer redis = RedisServer.start(); TestOrigin origin = new TestOrigin();
             RunningGateway gw = RunningGateway.start(YAML, Map.of("ORIGIN", origin.uri(),
                     "REDIS_URL", redis.url(), "MODE", "open", "RATE", "10"));
             RateLimitClient client = new RateLimitClient(gw.port())) {
            assertThat(client.get("/api/a", "warm-up").status()).isEqualTo(200);
            redis.kill();
            long t0 = System.nanoTime();
            List<RawClient.Response> during = client.burst("/api/a", "alice", 60);
            double seconds = (System.nanoTime() - t0) / 1e9;
            long ok = RateLimitClient.count(during, 200);
            assertThat(ok).as("passed of 60 in %.1f s", seconds)
                    .isBetween(10L, 10L + 10L * ((long) Math.ceil(seconds) + 1));
            assertThat(RateLimitClient.count(during, 429)).isPositive();
            assertThat(during.get(0).header("X-RateLimit-Remaining")).isEqualTo("9");
            assertThat(outageLines.list).hasSize(1);
            assertThat(outageLines.list.get(0).getFormattedMessage()).contains("redis store unavailable")
                    .contains("failure-mode: open");

            // Redis back within seconds: its end is logged as Redis answers (the hold-off lets a request through
            // within 1 s), not with the first answer 10 s after the outage line (session 55: never, when Redis
            // failed again before).
            redis.restart();
            long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
            while (outageLines.list.size() < 2 && System.nanoTime() - deadline < 0) {
                client.get("/api/a", "bob");
                LockSupport.parkNanos(Duration.ofMillis(20).toNanos());
            }
            assertThat(outageLines.list).hasSize(2);
            assertThat(outageLines.list.get(1).getFormattedMessage()).contains("redis store answers again");
        } finally {
            release(outageLines, "io.loomgate.ratelimit.OutageLog");
        }
    }

    /** Keep-alive requests on one connection, key "flood", until the deadline. */
    private static void flood(int port, long deadline, AtomicInteger passed, AtomicInteger answered)
            throws IOException {
        try (RawClient c = new RawClient(port)) {
            c.socket().setSoTimeout(30_000);
            while (System.nanoTime() - deadline < 0) {
                RawClient.Response r = c.send("GET /api/f HTTP/1.1\r\nHost: gw\r\nX-Api-Key: flood\r\n\r\n").read();
                answered.incrementAndGet();
                if (r.status() == 200) {
                    passed.incrementAndGet();
                }
            }
        }
    }

    private static Gateway.Observers observers(GatewayMetrics metrics) {
        return new Gateway.Observers(ExchangeListener.NOOP, PoolListener.NOOP, ConnectionListener.NOOP,
                metrics.rateLimits());
    }

    private static ListAppender<ILoggingEvent> capture(String logger) {
        ListAppender<ILoggingEvent> lines = new ListAppender<>();
        lines.start();
        ((Logger) LoggerFactory.getLogger(logger)).addAppender(lines);
        return lines;
    }

    private static void release(ListAppender<ILoggingEvent> lines, String logger) {
        ((Logger) LoggerFactory.getLogger(logger)).detachAppender(lines);
    }
}
