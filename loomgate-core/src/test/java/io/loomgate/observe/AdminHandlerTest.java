package io.loomgate.observe;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.loomgate.proxy.BoundRoutes;
import io.loomgate.route.PredicateContext;
import io.loomgate.route.Route;
import io.loomgate.route.RoutePredicate;
import io.loomgate.route.RouteTable;
import io.loomgate.testkit.PrometheusText;
import io.loomgate.threads.ConnectionExecutors;
import io.loomgate.threads.ThreadModel;
import io.loomgate.upstream.Endpoint;
import io.loomgate.upstream.PoolListener;
import io.loomgate.upstream.PoolSettings;
import io.loomgate.upstream.UpstreamDefinition;
import io.loomgate.upstream.Upstreams;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Each admin endpoint, answered straight from the live objects. */
class AdminHandlerTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    private record PathIs(String path) implements RoutePredicate {
        @Override
        public boolean test(PredicateContext context) {
            return true;
        }

        @Override
        public String toString() {
            return "Path=" + path;
        }
    }

    private final GatewayMetrics metrics = new GatewayMetrics();
    private final AtomicBoolean ready = new AtomicBoolean();
    private final RouteTable table = new RouteTable(List.of(
            new Route("users", 1, List.of(new PathIs("/users/**")), List.of(), Duration.ofSeconds(5),
                    false, 100, Duration.ofMillis(250)),
            new Route("orders", 2, List.of(new PathIs("/orders/**")), List.of(), Duration.ofSeconds(5),
                    true, 0, Duration.ZERO)));
    // upstreams named apart from their routes: /routes must show the upstream a route is bound to, not its own id
    private final Upstreams upstreams = Upstreams.create(List.of(
            new UpstreamDefinition("users-up", List.of(new Endpoint("127.0.0.1", 9)), PoolSettings.DEFAULTS),
            new UpstreamDefinition("orders-up", List.of(new Endpoint("127.0.0.1", 9)), PoolSettings.DEFAULTS)),
            PoolListener.NOOP);
    private final BoundRoutes routes = BoundRoutes.bind(table, r -> upstreams.get(r.id() + "-up"));
    private final AdminHandler handler = new AdminHandler(metrics, () -> routes, upstreams, ready::get);

    @AfterEach
    void close() {
        upstreams.close();
        metrics.close();
    }

    private FakeServerExchange get(String target) throws Exception {
        FakeServerExchange x = FakeServerExchange.get(target);
        handler.handle(x);
        return x;
    }

    @Test
    void livenessIsAlwaysUpAndReadinessFollowsTheSupplier() throws Exception {
        assertThat(get("/health/live").status()).isEqualTo(200);
        assertThat(get("/health/ready").status()).isEqualTo(503);
        ready.set(true);
        FakeServerExchange x = get("/health/ready");
        assertThat(x.status()).isEqualTo(200);
        assertThat(x.bodyText()).isEqualTo("ready\n");
    }

    @Test
    void metricsAreServedAsPrometheusText() throws Exception {
        metrics.exchangeEnd(FakeExchange.ok("users", "GET", 200, 2));
        FakeServerExchange x = get("/metrics");
        assertThat(x.status()).isEqualTo(200);
        assertThat(x.header("Content-Type")).isEqualTo("text/plain; version=0.0.4; charset=utf-8");
        assertThat(new PrometheusText(x.bodyText()).value("loomgate_requests_total", "route=users", "status=2xx"))
                .isEqualTo(1);
    }

    @Test
    void routesAreListedWithPredicatesUpstreamAndCounters() throws Exception {
        for (int i = 0; i < 3; i++) {
            metrics.exchangeEnd(FakeExchange.ok("users", "GET", 200, 2));
        }
        FakeServerExchange x = get("/routes");
        assertThat(x.header("Content-Type")).isEqualTo("application/json");
        JsonNode list = JSON.readTree(x.bodyText());
        assertThat(list).hasSize(2);
        JsonNode users = list.get(0);
        assertThat(users.get("id").asText()).isEqualTo("users");
        assertThat(users.get("order").asInt()).isEqualTo(1);
        assertThat(users.get("predicates").get(0).asText()).isEqualTo("Path=/users/**");
        assertThat(users.get("upstream").asText()).isEqualTo("users-up");
        assertThat(users.get("maxInFlight").asInt()).isEqualTo(100);
        assertThat(users.get("counters").get("requests").asLong()).isEqualTo(3);
        assertThat(list.get(1).get("counters").get("requests").asLong()).isZero();
    }

    @Test
    void threadDumpIsJsonAndShowsAParkedVirtualThreadByName() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch parked = new CountDownLatch(1);
        try (ExecutorService executor = ConnectionExecutors.create(ThreadModel.VIRTUAL, "admin-test")) {
            executor.submit(() -> {
                Thread.currentThread().setName("parked-for-thread-dump");
                parked.countDown();
                release.await();
                return null;
            });
            parked.await();
            FakeServerExchange x = get("/threads");
            release.countDown();

            assertThat(x.header("Content-Type")).isEqualTo("application/json");
            JsonNode dump = JSON.readTree(x.bodyText()).get("threadDump");
            JsonNode found = null;
            for (JsonNode container : dump.get("threadContainers")) {
                for (JsonNode t : container.get("threads")) {
                    if (t.get("name").asText().equals("parked-for-thread-dump")) {
                        found = t;
                    }
                }
            }
            assertThat(found).as("the parked virtual thread in the dump").isNotNull();
            assertThat(found.get("virtual").asBoolean()).isTrue();
            assertThat(found.get("stack").toString()).contains("CountDownLatch.await");
        }
    }

    @Test
    void threadDumpAlsoComesAsText() throws Exception {
        FakeServerExchange x = get("/threads?format=text");
        assertThat(x.header("Content-Type")).startsWith("text/plain");
        assertThat(x.bodyText()).contains("\"main\"");
        assertThat(get("/threads?format=xml").status()).isEqualTo(400);
    }

    @Test
    void pinnedSaysWhenTheMonitorIsOff() throws Exception {
        JsonNode pinned = JSON.readTree(get("/pinned").bodyText());
        assertThat(pinned.get("enabled").asBoolean()).isFalse();
        assertThat(pinned.get("recent")).isEmpty();
    }

    @Test
    void statsCarryRatesConnectionsAndThreads() throws Exception {
        metrics.connectionOpened(new java.net.InetSocketAddress("127.0.0.1", 1));
        for (int i = 0; i < 4; i++) {
            metrics.exchangeEnd(FakeExchange.ok("users", "GET", 200, 8));
        }
        JsonNode stats = JSON.readTree(get("/api/stats").bodyText());
        assertThat(stats.get("clientConnections").asInt()).isEqualTo(1);
        JsonNode users = stats.get("routes").get(0);
        assertThat(users.get("id").asText()).isEqualTo("users");
        assertThat(users.get("requests").asLong()).isEqualTo(4);
        assertThat(users.get("rps").asDouble()).isGreaterThan(0);
        assertThat(users.get("p50Ms").asDouble()).isBetween(7.9, 8.1);
        assertThat(stats.get("threads").get("carrierParallelism").asDouble()).isGreaterThanOrEqualTo(1);
        assertThat(stats.get("routes").get(1).get("id").asText()).isEqualTo("orders");
    }

    @Test
    void dashboardIsServedAsHtml() throws Exception {
        FakeServerExchange x = get("/");
        assertThat(x.header("Content-Type")).isEqualTo("text/html; charset=utf-8");
        assertThat(x.bodyText()).contains("<title>Loomgate");
    }

    @Test
    void unknownPathsAndMethodsGetSpecificAnswers() throws Exception {
        FakeServerExchange missing = get("/nope");
        assertThat(missing.status()).isEqualTo(404);
        assertThat(missing.bodyText()).contains("/metrics");

        FakeServerExchange post = new FakeServerExchange("POST", "/metrics");
        handler.handle(post);
        assertThat(post.status()).isEqualTo(405);
        assertThat(post.header("Allow")).isEqualTo("GET, HEAD");
    }
}
