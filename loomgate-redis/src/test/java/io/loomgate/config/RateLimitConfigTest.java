package io.loomgate.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.ratelimit.RedisSettings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code redis:} section and the {@code RequestRateLimiter} arguments: what is accepted, and a refusal naming
 * file, line and key for every bad value, including a Redis store with no Redis.
 */
class RateLimitConfigTest {

    private static GatewayConfig load(String yaml, Map<String, String> env) throws ConfigException {
        GatewayConfig cfg = ConfigLoader.parse(yaml, "gateway.yaml", env);
        GatewayAssembly.build(cfg);
        return cfg;
    }

    private static String refusal(String yaml) {
        try {
            load(yaml, Map.of());
        } catch (ConfigException e) {
            return e.getMessage();
        }
        throw new AssertionError("accepted:\n" + yaml);
    }

    /** A route whose RequestRateLimiter has these argument lines; the filter's name is on line 6. */
    private static String limiter(String redis, String... args) {
        StringBuilder y = new StringBuilder(redis).append("""
                routes:
                  - id: api
                    uri: http://127.0.0.1:8081
                    filters:
                      - name: RequestRateLimiter
                        args:
                """);
        for (String a : args) {
            y.append("          ").append(a).append('\n');
        }
        return y.toString();
    }

    @Test
    void theIssuesExampleIsAccepted() throws ConfigException {
        GatewayConfig cfg = load("""
                redis:
                  url: ${REDIS_URL:redis://127.0.0.1:6379}
                  timeout: 50ms
                routes:
                  - id: api
                    uri: http://127.0.0.1:8081
                    predicates: [ "Path=/api/**" ]
                    filters:
                      - name: RequestRateLimiter
                        args:
                          replenish-rate: 10
                          burst-capacity: 20
                          requested-tokens: 1
                          key-resolver: client-ip
                          store: redis
                          deny-empty-key: true
                """, Map.of());
        RedisSettings r = cfg.redis();
        assertThat(r.host()).isEqualTo("127.0.0.1");
        assertThat(r.port()).isEqualTo(6379);
        assertThat(r.tls()).isFalse();
        assertThat(r.timeout()).isEqualTo(Duration.ofMillis(50));
        assertThat(r.maxConnections()).isEqualTo(RedisSettings.DEFAULT_MAX_CONNECTIONS);
    }

    @Test
    void aRedissUrlWithUserPasswordAndDatabaseIsRead() throws ConfigException {
        RedisSettings r = load("redis:\n  url: rediss://limiter:p%40ss@redis.internal:6380/2\n  max-connections: 8\n",
                Map.of()).redis();
        assertThat(r.tls()).isTrue();
        assertThat(r.user()).isEqualTo("limiter");
        assertThat(r.password()).isEqualTo("p@ss");
        assertThat(r.database()).isEqualTo(2);
        assertThat(r.port()).isEqualTo(6380);
        assertThat(r.maxConnections()).isEqualTo(8);
        assertThat(r.toString()).doesNotContain("p@ss");
        assertThat(load("redis:\n  url: redis://:only-password@h\n", Map.of()).redis().password())
                .isEqualTo("only-password");
    }

    @Test
    void springCloudGatewaysSpellingIsAcceptedAndSelectsTheRedisStore() throws ConfigException {
        load(limiter("redis:\n  url: redis://127.0.0.1:6379\n", "redis-rate-limiter.replenishRate: 10",
                "redis-rate-limiter.burstCapacity: 20", "redis-rate-limiter.requestedTokens: 1",
                "keyResolver: route", "denyEmptyKey: false"), Map.of());
        assertThat(refusal(limiter("", "redis-rate-limiter.replenishRate: 10")))
                .isEqualTo("gateway.yaml:7: route 'api': filter 'RequestRateLimiter': store: redis needs the Redis "
                        + "to use: add a top-level 'redis:' section with 'url: redis://host:port'");
    }

    @Test
    void springCloudGatewaysNestedSpellingIsTheDottedOne() throws ConfigException {
        String nested = limiter("", "redis-rate-limiter:", "  replenishRate: 10", "  burstCapacity: 20");
        assertThat(refusal(nested)).isEqualTo("gateway.yaml:8: route 'api': filter 'RequestRateLimiter': store: "
                + "redis needs the Redis to use: add a top-level 'redis:' section with 'url: redis://host:port'");
        load(limiter("redis:\n  url: redis://127.0.0.1:6379\n", "redis-rate-limiter:", "  replenishRate: 10"),
                Map.of());
        assertThat(refusal(limiter("", "redis-rate-limiter:", "  replenishRat: 10")))
                .isEqualTo("gateway.yaml:8: route 'api': filter 'RequestRateLimiter': unknown argument "
                        + "'redis-rate-limiter.replenishRat' — did you mean 'redis-rate-limiter.replenishRate'?");
    }

    @Test
    void aRedisStoreWithoutRedisUrlIsRefusedAtStartUp() {
        assertThat(refusal(limiter("", "replenish-rate: 10", "store: redis")))
                .startsWith("gateway.yaml:8: route 'api': filter 'RequestRateLimiter': store: redis needs");
        // An empty ${REDIS_URL:} means no Redis, too.
        assertThat(refusal(limiter("redis:\n  url: ${REDIS_URL:}\n", "replenish-rate: 10", "store: redis")))
                .startsWith("gateway.yaml:10: route 'api': filter 'RequestRateLimiter': store: redis needs");
    }

    @Test
    void theLocalStoreNeedsNoRedis() throws ConfigException {
        assertThat(load(limiter("", "replenish-rate: 10"), Map.of()).redis()).isNull();
    }

    @Test
    void everyBadRedisKeyIsNamedWithItsLine() {
        assertThat(refusal("redis:\n  url: http://127.0.0.1:6379\n"))
                .isEqualTo("gateway.yaml:2: redis.url: expected redis://host:port or rediss://host:port, got "
                        + "'http://127.0.0.1:6379'");
        assertThat(refusal("redis:\n  url: redis://h:6379/zero\n"))
                .isEqualTo("gateway.yaml:2: redis.url: the path of 'redis://h:6379/zero' must be a database number, "
                        + "like /0");
        assertThat(refusal("redis:\n  url: redis://h\n  timeout: soon\n")).startsWith("gateway.yaml:3: redis.timeout:");
        assertThat(refusal("redis:\n  url: redis://h\n  timeout: 0s\n")).startsWith("gateway.yaml:3: redis.timeout:");
        assertThat(refusal("redis:\n  url: redis://h\n  timeout: 500us\n"))
                .isEqualTo("gateway.yaml:3: redis.timeout: timeout must be at least 1ms, got 0ms");
        assertThat(refusal("redis:\n  url: redis://h\n  max-connections: 0\n"))
                .startsWith("gateway.yaml:3: redis.max-connections:");
        assertThat(refusal("redis:\n  url: redis://h\n  ca-file: ca.pem\n"))
                .isEqualTo("gateway.yaml:3: redis.ca-file: is for rediss:// (TLS); the url is redis://h:6379");
        assertThat(refusal("redis:\n  url: redis://h\n  timout: 5ms\n"))
                .isEqualTo("gateway.yaml:3: redis: unknown key 'timout' — did you mean 'timeout'?");
    }

    @Test
    void aCaFileThatIsNotThereIsRefusedAtItsLine(@TempDir Path dir) throws Exception {
        Path yaml = dir.resolve("gateway.yaml");
        Files.writeString(yaml, "redis:\n  url: rediss://h\n  ca-file: missing.pem\n");
        try {
            ConfigLoader.load(yaml);
            throw new AssertionError("accepted a missing ca-file");
        } catch (ConfigException e) {
            assertThat(e.getMessage()).startsWith(yaml + ":3: redis.ca-file: cannot read CA certificates from "
                    + dir.resolve("missing.pem"));
        }
    }

    @Test
    void everyBadFilterArgumentIsNamedAtItsOwnLine() {
        // limiter(): the filter's name is on line 5, its arguments from line 7 on.
        String at5 = "gateway.yaml:5: route 'api': filter 'RequestRateLimiter': ";
        String at7 = "gateway.yaml:7: route 'api': filter 'RequestRateLimiter': ";
        String at8 = "gateway.yaml:8: route 'api': filter 'RequestRateLimiter': ";
        assertThat(refusal(limiter("", "burst-capacity: 20"))).isEqualTo(at5
                + "missing argument 'replenish-rate' (tokens per second)");
        assertThat(refusal(limiter("", "replenish-rate: ten"))).isEqualTo(at7
                + "replenish-rate: expected an integer >= 1, got 'ten'");
        assertThat(refusal(limiter("", "replenish-rate: 0"))).isEqualTo(at7
                + "replenish-rate: expected an integer >= 1, got '0'");
        assertThat(refusal(limiter("", "replenish-rate: 10", "burst-capacity: 5"))).isEqualTo(at8
                + "burst-capacity (5) must be at least replenish-rate (10)");
        assertThat(refusal(limiter("", "replenish-rate: 10", "burst-capacity: x"))).isEqualTo(at8
                + "burst-capacity: expected an integer >= 1, got 'x'");
        assertThat(refusal(limiter("", "replenish-rate: 10", "requested-tokens: 0"))).isEqualTo(at8
                + "requested-tokens: expected an integer >= 1, got '0'");
        assertThat(refusal(limiter("", "replenish-rate: 10", "requested-tokens: 11"))).isEqualTo(at8
                + "burst-capacity (10) must be at least requested-tokens (11), or no request could ever pass");
        assertThat(refusal(limiter("", "replenish-rate: 10", "key-resolver: cookie"))).isEqualTo(at8
                + "key-resolver: expected client-ip, header:<name>, route, path or principal, got 'cookie'");
        assertThat(refusal(limiter("", "replenish-rate: 10", "key-resolver: 'header:'"))).isEqualTo(at8
                + "key-resolver: 'header:' needs a header name after 'header:', like header:X-Api-Key");
        assertThat(refusal(limiter("", "replenish-rate: 10", "keyResolver: '#{@userKeyResolver}'"))).isEqualTo(at8
                + "key-resolver: expected client-ip, header:<name>, route, path or principal, got "
                + "'#{@userKeyResolver}' (Spring bean references cannot be used here; pick a built-in resolver)");
        assertThat(refusal(limiter("", "replenish-rate: 10", "store: memcached"))).isEqualTo(at8
                + "store: expected local or redis, got 'memcached'");
        assertThat(refusal(limiter("", "replenish-rate: 10", "deny-empty-key: maybe"))).isEqualTo(at8
                + "deny-empty-key: expected true or false, got 'maybe'");
        assertThat(refusal(limiter("", "replenish-rate: 10", "redis-rate-limiter.replenishRate: 10"))).isEqualTo(at8
                + "'replenish-rate' and 'redis-rate-limiter.replenishRate' are the same argument; write one of them");
        assertThat(refusal(limiter("", "redis-rate-limiter.replenishRate: 10", "store: local"))).isEqualTo(at8
                + "store: local, but redis-rate-limiter.* arguments select the Redis store; write replenish-rate "
                + "and burst-capacity for a local limit");
        assertThat(refusal(limiter("", "replenish-rate: 10", "burst-capacty: 20"))).isEqualTo(at8
                + "unknown argument 'burst-capacty' — did you mean 'burst-capacity'?");
    }

    @Test
    void failureModeAndMaxKeysAreReadAndABadValueIsRefusedNamingItsKey() throws ConfigException {
        GatewayConfig deny = load(limiter("redis:\n  url: redis://127.0.0.1:6379\n  failure-mode: deny\n",
                "redis-rate-limiter.replenishRate: 10", "max-keys: 500"), Map.of());
        assertThat(deny.redis().failureMode()).isEqualTo(RedisSettings.FailureMode.DENY);
        assertThat(load(limiter("redis:\n  url: redis://127.0.0.1:6379\n", "redis-rate-limiter.replenishRate: 10"),
                Map.of()).redis().failureMode()).isEqualTo(RedisSettings.FailureMode.OPEN);
        assertThat(refusal(limiter("redis:\n  url: redis://127.0.0.1:6379\n  failure-mode: closed\n",
                "replenish-rate: 10"))).contains("gateway.yaml:3").contains("failure-mode")
                .contains("expected open or deny, got 'closed'");
        assertThat(refusal(limiter("", "replenish-rate: 10", "max-keys: 0")))
                .contains("gateway.yaml:8").contains("max-keys: expected an integer >= 1");
    }
}
