package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.RawClient;
import io.loomgate.testkit.RunningGateway;
import io.loomgate.testkit.TestOrigin;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * {@code RequestRateLimiter} with the local store, through a whole gateway: a burst from one key gets the bucket's
 * capacity and then 429 with SCG's headers and Retry-After (the origin never sees those), tokens come back at the
 * replenish rate, other keys are untouched, and a request without a key is refused or passed as configured.
 */
class LocalRateLimitTest {
    private static final String ROUTE = """
            routes:
              - id: api
                uri: ${ORIGIN}
                predicates: [ "Path=/api/**" ]
                filters:
                  - name: RequestRateLimiter
                    args:
                      replenish-rate: 10
                      burst-capacity: 20
                      requested-tokens: 1
                      key-resolver: header:X-Api-Key
                      %s
            """;

    private static RunningGateway gateway(TestOrigin origin, String extraArg) throws Exception {
        return RunningGateway.start(ROUTE.formatted(extraArg), Map.of("ORIGIN", origin.uri()));
    }

    @Test
    void aBurstOfFiftyGetsTwentyThrough429sWithTheLimitHeadersAndTenMoreASecondLater() throws Exception {
        try (TestOrigin origin = new TestOrigin(); RunningGateway gw = gateway(origin, "store: local");
             RateLimitClient client = new RateLimitClient(gw.port())) {
            long t0 = System.nanoTime();
            List<RawClient.Response> burst = client.burst("/api/items", "alice", 49);
            long lastSent = System.nanoTime();
            burst.add(client.get("/api/items", "alice"));
            double burstSeconds = (System.nanoTime() - t0) / 1e9;

            assertThat(burst.subList(0, 20)).allMatch(r -> r.status() == 200);
            long passed = RateLimitClient.count(burst, 200);
            // Tokens refill continuously (10/s), so a slow burst may earn some back; a fast one gets exactly 20.
            assertThat(passed).isBetween(20L, 20L + (long) Math.floor(10 * burstSeconds) + 1);
            if (burstSeconds < 0.09) {
                assertThat(passed).isEqualTo(20);
            }
            assertThat(RateLimitClient.count(burst, 429)).isEqualTo(50 - passed);
            assertThat(origin.requestCount()).isEqualTo((int) passed);

            RawClient.Response first = burst.get(0);
            assertThat(first.header("X-RateLimit-Remaining")).isEqualTo("19");
            assertThat(first.header("X-RateLimit-Replenish-Rate")).isEqualTo("10");
            assertThat(first.header("X-RateLimit-Burst-Capacity")).isEqualTo("20");
            assertThat(first.header("X-RateLimit-Requested-Tokens")).isEqualTo("1");
            RawClient.Response limited = burst.get(burst.size() - 1);
            assertThat(limited.status()).isEqualTo(429);
            assertThat(limited.header("X-RateLimit-Remaining")).isEqualTo("0");
            assertThat(limited.header("X-RateLimit-Replenish-Rate")).isEqualTo("10");
            assertThat(limited.header("X-RateLimit-Burst-Capacity")).isEqualTo("20");
            assertThat(limited.header("X-RateLimit-Requested-Tokens")).isEqualTo("1");
            assertThat(limited.header("Retry-After")).isEqualTo("1");

            // One second after the last request of the burst (which left less than one token), send 30 more.
            long wakeAt = lastSent + 1_000_000_000L;
            while (System.nanoTime() < wakeAt) {
                LockSupport.parkNanos(wakeAt - System.nanoTime());
            }
            List<RawClient.Response> later = client.burst("/api/items", "alice", 30);
            double sinceLastBurstRequest = (System.nanoTime() - lastSent) / 1e9;
            long passedLater = RateLimitClient.count(later, 200);
            // At least 1 s of refill (10 tokens); at most what the whole measured interval could refill, plus the
            // fraction of a token the burst may have left.
            assertThat(passedLater).isBetween(10L, (long) Math.floor(1 + 10 * sinceLastBurstRequest));
        }
    }

    @Test
    void anotherKeyHasItsOwnBucket() throws Exception {
        try (TestOrigin origin = new TestOrigin(); RunningGateway gw = gateway(origin, "store: local");
             RateLimitClient client = new RateLimitClient(gw.port())) {
            client.burst("/api/a", "alice", 40);
            assertThat(client.get("/api/a", "alice").status()).isEqualTo(429);
            RawClient.Response bob = client.get("/api/a", "bob");
            assertThat(bob.status()).isEqualTo(200);
            assertThat(bob.header("X-RateLimit-Remaining")).isEqualTo("19");
        }
    }

    @Test
    void aRequestWithoutTheKeyHeaderIsRefusedWith403ByDefault() throws Exception {
        try (TestOrigin origin = new TestOrigin(); RunningGateway gw = gateway(origin, "store: local");
             RateLimitClient client = new RateLimitClient(gw.port())) {
            RawClient.Response r = client.get("/api/a", null);
            assertThat(r.status()).isEqualTo(403);
            assertThat(origin.requestCount()).isZero();
        }
    }

    @Test
    void withDenyEmptyKeyFalseARequestWithoutTheKeyIsNotLimited() throws Exception {
        try (TestOrigin origin = new TestOrigin(); RunningGateway gw = gateway(origin, "deny-empty-key: false");
             RateLimitClient client = new RateLimitClient(gw.port())) {
            List<RawClient.Response> all = client.burst("/api/a", null, 40);
            assertThat(all).allMatch(r -> r.status() == 200 && r.header("X-RateLimit-Remaining") == null);
            assertThat(origin.requestCount()).isEqualTo(40);
        }
    }

    @Test
    void twoHundredConcurrentConnectionsGetWhatTheBucketHoldsAndNoMore() throws Exception {
        String yaml = """
                routes:
                  - id: shared
                    uri: ${ORIGIN}
                    predicates: [ "Path=/**" ]
                    filters:
                      - name: RequestRateLimiter
                        args: { replenish-rate: 1, burst-capacity: 1000, key-resolver: route }
                """;
        int connections = 200;
        int perConnection = 10;
        try (TestOrigin origin = new TestOrigin();
             RunningGateway gw = RunningGateway.start(yaml, Map.of("ORIGIN", origin.uri()))) {
            CountDownLatch go = new CountDownLatch(1);
            List<Future<int[]>> results = new ArrayList<>();
            long t0;
            try (ExecutorService clients = Executors.newVirtualThreadPerTaskExecutor()) {
                for (int c = 0; c < connections; c++) {
                    results.add(clients.submit(() -> {
                        int[] byStatus = new int[2];
                        try (RateLimitClient client = new RateLimitClient(gw.port())) {
                            go.await();
                            for (int i = 0; i < perConnection; i++) {
                                int status = client.get("/x", null).status();
                                byStatus[status == 200 ? 0 : status == 429 ? 1 : -1]++;
                            }
                        }
                        return byStatus;
                    }));
                }
                t0 = System.nanoTime();
                go.countDown();
            }
            double seconds = (System.nanoTime() - t0) / 1e9;
            long allowed = 0;
            long limited = 0;
            for (Future<int[]> f : results) {
                allowed += f.get()[0];
                limited += f.get()[1];
            }
            assertThat(allowed + limited).isEqualTo(connections * perConnection);
            // 2,000 attempts on a bucket of 1,000 refilled at 1/s: 1,000 plus what the elapsed time refilled.
            assertThat(allowed).isBetween(1000L, 1000L + (long) Math.ceil(seconds) + 1);
            assertThat(origin.requestCount()).isEqualTo((int) allowed);
        }
    }
}
