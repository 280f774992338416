package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.cli.ServedGateway;
import io.loomgate.config.ConfigLoader;
import io.loomgate.config.Plugins;
import io.loomgate.observe.ConfigReloads;
import io.loomgate.testkit.FreePorts;
import io.loomgate.testkit.RedisServer;
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
 * A live reload keeps a route's rate-limit buckets and retry budget when it does not change them (session 57): until
 * then every applied reload refilled every local bucket and gave every {@code Retry} its whole budget again, so a
 * client over its limit got a fresh burst from a reload that only renamed another route. A limiter whose settings
 * change starts with full buckets. On Redis the buckets live in Redis, so a reload never touched them: checked too.
 *
 * <p>The buckets hold 60 tokens, refilled at 1 a second, and each request takes 60: a bucket emptied stays empty for
 * a minute, so no answer depends on how fast the machine is.
 */
class LimiterStateAcrossReloadTest {
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private static final String LIMITED = "  - id: limited\n    uri: %s\n    predicates: [ \"Path=/limited/**\" ]\n"
            + "    filters:\n      - name: RequestRateLimiter\n        args: { %s }\n"
            + "  - id: %s\n    uri: %s\n    predicates: [ \"Path=/other/**\" ]\n";

    @Test
    void aLocalBucketOverItsLimitStaysEmptyAcrossAReloadThatDoesNotChangeIt(@TempDir Path dir) throws Exception {
        String local = "replenish-rate: 1, burst-capacity: 60, requested-tokens: 60";
        overLimitAcrossReloads(dir, "", local, "replenish-rate: 1, burst-capacity: 61, requested-tokens: 60");
    }

    @Test
    void aRedisBucketOverItsLimitStaysEmptyAcrossAReload(@TempDir Path dir) throws Exception {
        try (RedisServer redis = RedisServer.start()) {
            String onRedis = "store: redis, replenish-rate: 1, burst-capacity: 60, requested-tokens: 60";
            overLimitAcrossReloads(dir, "redis:\n  url: " + redis.url() + "\n", onRedis, null);
        }
    }

    /** Empties the bucket, reloads a file that renames the other route, expects 429; then one that changes it. */
    private static void overLimitAcrossReloads(Path dir, String section, String args, String changedArgs)
            throws Exception {
        try (TestOrigin origin = new TestOrigin()) {
            origin.fallback(r -> Reply.ok("ok"));
            Path file = dir.resolve("gateway.yaml");
            try (ServedGateway gw = FreePorts.start(admin -> {
                Files.writeString(file, head(admin) + section + "routes:\n"
                        + LIMITED.formatted(origin.uri(), args, "other", origin.uri()));
                return ServedGateway.start(ConfigLoader.load(file), Plugins.NONE, new ServedGateway.Reloading(file,
                        UnaryOperator.identity(), false, false, Duration.ofMillis(50)));
            })) {
                assertThat(status(gw, "/limited/1")).isEqualTo(200);
                assertThat(status(gw, "/limited/2")).as("the bucket is empty").isEqualTo(429);

                reload(gw, file, section + "routes:\n" + LIMITED.formatted(origin.uri(), args, "renamed",
                        origin.uri()));
                assertThat(status(gw, "/other/x")).isEqualTo(200);
                assertThat(status(gw, "/limited/3")).as("the bucket is still empty after a reload of another route")
                        .isEqualTo(429);

                if (changedArgs != null) {
                    reload(gw, file, section + "routes:\n" + LIMITED.formatted(origin.uri(), changedArgs, "renamed",
                            origin.uri()));
                    assertThat(status(gw, "/limited/4")).as("a limiter with other settings starts full")
                            .isEqualTo(200);
                }
            }
        }
    }

    /**
     * A budget of one retry a second over {@link io.loomgate.resilience.RetryBudget}'s ten-second window (and none by
     * share): ten failing requests spend it, the eleventh is not retried, and neither is the twelfth after a reload
     * of another route. Before: the reload gave a new budget, and the twelfth was retried.
     */
    @Test
    void aSpentRetryBudgetStaysSpentAcrossAReloadThatDoesNotChangeIt(@TempDir Path dir) throws Exception {
        try (TestOrigin failing = new TestOrigin(); TestOrigin other = new TestOrigin()) {
            failing.fallback(r -> Reply.status(500));
            other.fallback(r -> Reply.ok("other"));
            Path file = dir.resolve("gateway.yaml");
            String routes = "routes:\n"
                    + "  - id: retried\n    uri: " + failing.uri() + "\n    predicates: [ \"Path=/retried/**\" ]\n"
                    + "    filters:\n      - name: Retry\n        args: { retries: 1, statuses: [ 500 ], "
                    + "budget-percent: 0, min-retries-per-second: 1 }\n"
                    + "  - id: %s\n    uri: " + other.uri() + "\n    predicates: [ \"Path=/other/**\" ]\n";
            try (ServedGateway gw = FreePorts.start(admin -> {
                Files.writeString(file, head(admin) + routes.formatted("other"));
                return ServedGateway.start(ConfigLoader.load(file), Plugins.NONE, new ServedGateway.Reloading(file,
                        UnaryOperator.identity(), false, false, Duration.ofMillis(50)));
            })) {
                for (int i = 0; i < 11; i++) {
                    assertThat(status(gw, "/retried/" + i)).isEqualTo(500);
                }
                assertThat(failing.requestCount()).as("ten retried, the eleventh not: the budget is spent")
                        .isEqualTo(21);

                reload(gw, file, routes.formatted("renamed"));
                assertThat(status(gw, "/other/x")).isEqualTo(200);
                assertThat(status(gw, "/retried/12")).isEqualTo(500);
                assertThat(failing.requestCount()).as("the budget is still spent after a reload of another route")
                        .isEqualTo(22);
            }
        }
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
