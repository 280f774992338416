package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.JarProcess;
import io.loomgate.testkit.PrometheusText;
import io.loomgate.testkit.RawClient;
import io.loomgate.testkit.TestOrigin;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 35's flood: one client pipelining requests that each carry a new rate-limit key, into a gateway with a small
 * heap. The local store holds at most its {@code max-keys}, counts what it pushes out, and the gateway goes on serving
 * a normal client and answering its health checks (before, the keys filled the heap for minutes and the gateway
 * stopped accepting while /health/ready said 200).
 */
class RateLimitKeyFloodIT {
    private static final int MAX_KEYS = 5_000;
    private static final int CONNECTIONS = 4;
    /**
     * Four times max-keys in all: the store fills, then pushes out three times its size, which a store without the
     * cap fails (keys held, evictions) as surely as twelve times did (60,000 requests, which made this test 32 s).
     */
    private static final int PER_CONNECTION = 5_000;
    private static final int WINDOW = 200;

    @Test
    void aFloodOfUniqueKeysIsCappedAtMaxKeysAndTheGatewayKeepsServing(@TempDir Path dir) throws Exception {
        Path yaml = dir.resolve("gateway.yaml");
        Files.writeString(yaml, """
                server:
                  address: 127.0.0.1
                  port: 0
                admin:
                  port: ${ADMIN}
                routes:
                  - id: flood
                    uri: ${ORIGIN}
                    predicates: [ "Path=/**" ]
                    filters:
                      - name: RequestRateLimiter
                        args:
                          replenish-rate: 10
                          burst-capacity: 600
                          key-resolver: header:X-Key
                          max-keys: %d
                """.formatted(MAX_KEYS));
        try (TestOrigin origin = new TestOrigin();
             // admin port 0 would turn the admin listener off: a probed port, retried if lost before the bind
             JarProcess gw = JarProcess.listening(Duration.ofSeconds(30), admin -> JarProcess.start(
                     List.of("-Xmx64m"), List.of("serve", "--config", yaml.toString()),
                     Map.of("ORIGIN", origin.uri(), "ADMIN", Integer.toString(admin))))) {
            int port = gw.awaitListening(Duration.ofSeconds(30));
            int admin = gw.adminPort();
            AtomicInteger answered = new AtomicInteger();
            long started = System.nanoTime();
            try (ExecutorService vt = Executors.newVirtualThreadPerTaskExecutor()) {
                List<Future<?>> floods = new ArrayList<>();
                for (int c = 0; c < CONNECTIONS; c++) {
                    int conn = c;
                    floods.add(vt.submit(() -> {
                        flood(port, conn, answered);
                        return null;
                    }));
                }
                for (Future<?> f : floods) {
                    f.get();
                }
            }
            int sent = CONNECTIONS * PER_CONNECTION;
            boolean sweptMeanwhile = System.nanoTime() - started > Duration.ofSeconds(100).toNanos();
            assertThat(answered.get()).isEqualTo(sent);
            PrometheusText metrics = new PrometheusText(get(admin, "/metrics", null).bodyText());
            double keys = metrics.value("loomgate_ratelimit_keys");
            double evicted = metrics.value("loomgate_ratelimit_evictions_total", "route=flood");
            assertThat(keys).as("keys held").isPositive().isLessThanOrEqualTo(MAX_KEYS);
            // every key was new and none idled out (its expiry is 120 s): all but those held were pushed out
            if (sweptMeanwhile) { // a very slow run: the first keys may have expired before they were pushed out
                assertThat(evicted).as("evictions").isPositive().isLessThanOrEqualTo(sent - keys);
            } else {
                assertThat(evicted).as("evictions").isEqualTo(sent - keys);
            }
            // A normal client is served, and the admin listener answers.
            RawClient.Response normal = get(port, "/normal", "regular-client");
            assertThat(normal.status()).isEqualTo(200);
            assertThat(normal.header("X-RateLimit-Remaining")).isEqualTo("599");
            assertThat(get(admin, "/health/live", null).status()).isEqualTo(200);
            assertThat(get(admin, "/health/ready", null).status()).isEqualTo(200);
        }
    }

    /** Pipelines this connection's share of requests, WINDOW at a time, each with a key never sent before. */
    private static void flood(int port, int conn, AtomicInteger answered) throws IOException {
        try (RawClient c = new RawClient(port)) {
            c.socket().setSoTimeout(60_000);
            for (int sent = 0; sent < PER_CONNECTION; sent += WINDOW) {
                StringBuilder batch = new StringBuilder();
                for (int i = 0; i < WINDOW; i++) {
                    batch.append("GET /f HTTP/1.1\r\nHost: h\r\nX-Key: k-").append(conn).append('-')
                            .append(sent + i).append("\r\n\r\n");
                }
                c.send(batch.toString().getBytes(StandardCharsets.US_ASCII));
                for (int i = 0; i < WINDOW; i++) {
                    RawClient.Response r = c.read();
                    assertThat(r.status()).isEqualTo(200);
                    answered.incrementAndGet();
                }
            }
        }
    }

    private static RawClient.Response get(int port, String path, String key) throws IOException {
        try (RawClient c = new RawClient(port)) {
            c.socket().setSoTimeout(30_000);
            // An IP literal as Host: the admin listener answers only its own names (DNS rebinding)
            return c.send("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                    + (key == null ? "" : "X-Key: " + key + "\r\n") + "Connection: close\r\n\r\n").read();
        }
    }
}
