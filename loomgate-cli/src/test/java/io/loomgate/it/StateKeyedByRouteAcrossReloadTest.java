package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.cli.ServedGateway;
import io.loomgate.config.ConfigLoader;
import io.loomgate.config.Plugins;
import io.loomgate.observe.ConfigReloads;
import io.loomgate.testkit.FreePorts;
import io.loomgate.testkit.TestOrigin;
import io.loomgate.testkit.TestOrigin.Reply;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * State kept across a reload follows its route (session 58), not its place among routes with equal settings: a
 * factory is told the route's id ({@code ExtensionFactory.create(routeId, args)}), and local rate-limit buckets and
 * retry budgets are kept by route id and settings. Until then a reload that deleted the first of two routes with
 * identical limiter (or {@code Retry}) arguments handed the second the first one's buckets (or budget): here the
 * second route, never used, answered 429 (was not retried) after the first was deleted.
 *
 * <p>Buckets of 60 tokens at 1 a second, 60 taken per request; a retry budget of 1 retry a second over ten seconds and
 * none by share: no answer depends on the machine's speed (as in {@link LimiterStateAcrossReloadTest}).
 */
class StateKeyedByRouteAcrossReloadTest {
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private static final String ROUTE = "  - id: %s\n    uri: %s\n    predicates: [ \"Path=/%s/**\" ]\n"
            + "    filters:\n      - name: %s\n        args: { %s }\n";

    @Test
    void deletingTheFirstOfTwoEqualLimitersLeavesTheSecondItsOwnBuckets(@TempDir Path dir) throws Exception {
        String args = "replenish-rate: 1, burst-capacity: 60, requested-tokens: 60";
        try (TestOrigin origin = new TestOrigin()) {
            origin.fallback(r -> Reply.ok("ok"));
            String first = ROUTE.formatted("first", origin.uri(), "first", "RequestRateLimiter", args);
            String second = ROUTE.formatted("second", origin.uri(), "second", "RequestRateLimiter", args);
            Path file = dir.resolve("gateway.yaml");
            try (ServedGateway gw = start(file, "routes:\n" + first + second)) {
                assertThat(status(gw, "/first/1")).isEqualTo(200);
                assertThat(status(gw, "/first/2")).as("the first route's bucket is empty").isEqualTo(429);

                reload(gw, file, "routes:\n" + second);
                assertThat(status(gw, "/second/1")).as("the second route's own bucket, full: never used")
                        .isEqualTo(200);
                assertThat(status(gw, "/second/2")).isEqualTo(429);

                reload(gw, file, "routes:\n" + first + second);
                assertThat(status(gw, "/second/3")).as("still the second route's bucket, emptied").isEqualTo(429);
                assertThat(status(gw, "/first/3")).as("a route added back starts with full buckets").isEqualTo(200);
            }
        }
    }

    @Test
    void deletingTheFirstOfTwoEqualRetriesLeavesTheSecondItsOwnBudget(@TempDir Path dir) throws Exception {
        String args = "retries: 1, statuses: [ 500 ], budget-percent: 0, min-retries-per-second: 1";
        try (TestOrigin failing = new TestOrigin()) {
            failing.fallback(r -> Reply.status(500));
            String spent = ROUTE.formatted("spent", failing.uri(), "spent", "Retry", args);
            String fresh = ROUTE.formatted("fresh", failing.uri(), "fresh", "Retry", args);
            Path file = dir.resolve("gateway.yaml");
            try (ServedGateway gw = start(file, "routes:\n" + spent + fresh)) {
                for (int i = 0; i < 11; i++) {
                    assertThat(status(gw, "/spent/" + i)).isEqualTo(500);
                }
                assertThat(failing.requestCount()).as("ten retried, the eleventh not: its budget is spent")
                        .isEqualTo(21);

                reload(gw, file, "routes:\n" + fresh);
                assertThat(status(gw, "/fresh/1")).isEqualTo(500);
                assertThat(failing.requestCount()).as("the second route's own budget: its request was retried")
                        .isEqualTo(23);
            }
        }
    }

    private static ServedGateway start(Path file, String routes) throws Exception {
        return FreePorts.start(admin -> {
            Files.writeString(file, head(admin) + routes);
            return ServedGateway.start(ConfigLoader.load(file), Plugins.NONE, new ServedGateway.Reloading(file,
                    UnaryOperator.identity(), false, false, Duration.ofMillis(50)));
        });
    }

    private static void reload(ServedGateway gw, Path file, String body) throws Exception {
        Files.writeString(file, head(gw.adminPort()) + body);
        ConfigReloads.Result r = gw.reload();
        assertThat(r.outcome()).as(r.message()).isEqualTo("applied");
    }

    private static String head(int adminPort) {
        return "server:\n  address: 127.0.0.1\n  port: 0\nadmin:\n  address: 127.0.0.1\n  port: " + adminPort
                + "\naccess-log:\n  enabled: false\n";
    }

    private static int status(ServedGateway gw, String path) throws Exception {
        HttpRequest get = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + gw.port() + path))
                .timeout(Duration.ofSeconds(10)).build();
        return HTTP.send(get, HttpResponse.BodyHandlers.discarding()).statusCode();
    }
}
