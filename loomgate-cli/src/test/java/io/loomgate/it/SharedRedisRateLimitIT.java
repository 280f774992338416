package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.FreePorts;
import io.loomgate.testkit.JarProcess;
import io.loomgate.testkit.PrometheusText;
import io.loomgate.testkit.RawClient;
import io.loomgate.testkit.RedisServer;
import io.loomgate.testkit.TestOrigin;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

/**
 * Two gateway processes from the packaged jar share one redis-server: a client alternating between them gets the one
 * combined limit, not twice it, and each gateway's /metrics counts its own share.
 */
class SharedRedisRateLimitIT {

    @Test
    void clientsAlternatingBetweenTwoGatewaysGetTheCombinedLimit(@TempDir Path dir) throws Exception {
        Path yaml = dir.resolve("gateway.yaml");
        Files.writeString(yaml, """
                server:
                  address: 127.0.0.1
                  port: 0
                admin:
                  port: ${ADMIN_PORT}
                access-log:
                  enabled: false
                redis:
                  url: ${REDIS_URL}
                  timeout: 500ms
                routes:
                  - id: api
                    uri: ${ORIGIN}
                    predicates: [ "Path=/api/**" ]
                    filters:
                      - name: RequestRateLimiter
                        args:
                          replenish-rate: 10
                          burst-capacity: 20
                          key-resolver: header:X-Api-Key
                          store: redis
                """);
        try (RedisServer redis = RedisServer.start(); TestOrigin origin = new TestOrigin();
             Started a = gateway(yaml, redis, origin); Started b = gateway(yaml, redis, origin);
             Jedis direct = new Jedis("127.0.0.1", redis.port())) {
            int portA = a.port();
            int portB = b.port();
            int adminA = a.admin();
            int adminB = b.admin();
            try (RateLimitClient toA = new RateLimitClient(portA); RateLimitClient toB = new RateLimitClient(portB)) {
                // Warm both (JIT, the Redis pool's first connection) on another key, so the burst below is quick.
                toA.burst("/api/warm", "warm-a", 3);
                toB.burst("/api/warm", "warm-b", 3);
                for (int attempt = 0; attempt < 5; attempt++) {
                    String key = "alice-" + attempt;
                    long second = awaitFreshSecond(direct);
                    int before = origin.requestCount();
                    // An earlier attempt that crossed a second has counted its own denials: compare differences.
                    double limitedBefore = limitedSoFar(adminA) + limitedSoFar(adminB);
                    List<RawClient.Response> burst = new ArrayList<>();
                    for (int i = 0; i < 50; i++) {
                        burst.add((i % 2 == 0 ? toA : toB).get("/api/items", key));
                    }
                    if (Long.parseLong(direct.time().get(0)) != second) {
                        continue; // SCG's script counts whole server seconds: this burst crossed one, try again
                    }
                    assertThat(RateLimitClient.count(burst, 200)).isEqualTo(20);
                    assertThat(RateLimitClient.count(burst, 429)).isEqualTo(30);
                    assertThat(burst.subList(0, 20)).allMatch(r -> r.status() == 200);
                    assertThat(origin.requestCount() - before).isEqualTo(20);
                    double allowedA = metric(adminA, "allowed");
                    double allowedB = metric(adminB, "allowed");
                    assertThat(allowedA).isGreaterThanOrEqualTo(10 + 3);
                    assertThat(allowedB).isGreaterThanOrEqualTo(10 + 3);
                    assertThat(metric(adminA, "limited") + metric(adminB, "limited") - limitedBefore).isEqualTo(30);
                    return;
                }
                throw new AssertionError("no burst of 50 fitted in one server second in 5 tries");
            }
        }
    }

    /** A gateway started and listening, with the admin port it got. */
    private record Started(JarProcess process, int port, int admin) implements AutoCloseable {
        @Override
        public void close() throws Exception {
            process.close();
        }
    }

    /**
     * A gateway on an admin port found free just before (0 would turn it off); started again on another port if
     * something took that one before the gateway bound it ({@link FreePorts}: the other test JVM, this test's origin).
     */
    private static Started gateway(Path yaml, RedisServer redis, TestOrigin origin) throws Exception {
        JarProcess p = JarProcess.listening(Duration.ofSeconds(30), admin -> JarProcess.start(List.of("-Xmx128m"),
                List.of("serve", "--config", yaml.toString()),
                Map.of("ORIGIN", origin.uri(), "REDIS_URL", redis.url(), "ADMIN_PORT", Integer.toString(admin))));
        return new Started(p, p.awaitListening(Duration.ofSeconds(30)), p.adminPort());
    }

    private static double metric(int adminPort, String outcome) throws Exception {
        String body = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + adminPort + "/metrics")).build(),
                HttpResponse.BodyHandlers.ofString()).body();
        return new PrometheusText(body).value("loomgate_ratelimit_requests_total", "route=api", "outcome=" + outcome);
    }

    /** The requests limited so far, 0 before the first (the series appears with it). */
    private static double limitedSoFar(int adminPort) throws Exception {
        String body = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + adminPort + "/metrics")).build(),
                HttpResponse.BodyHandlers.ofString()).body();
        boolean any = body.lines().anyMatch(l -> l.startsWith("loomgate_ratelimit_requests_total{")
                && l.contains("outcome=\"limited\""));
        return any ? new PrometheusText(body).value("loomgate_ratelimit_requests_total", "route=api",
                "outcome=limited") : 0;
    }

    private static long awaitFreshSecond(Jedis j) {
        long start = Long.parseLong(j.time().get(0));
        long deadline = System.nanoTime() + 3_000_000_000L;
        while (System.nanoTime() < deadline) {
            long s = Long.parseLong(j.time().get(0));
            if (s != start) {
                return s;
            }
            LockSupport.parkNanos(2_000_000);
        }
        throw new AssertionError("the Redis server's clock did not move within 3 s");
    }
}
