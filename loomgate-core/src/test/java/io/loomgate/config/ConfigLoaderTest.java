package io.loomgate.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.extension.Durations;
import io.loomgate.http.Cidr;
import io.loomgate.http.HttpLimits;
import io.loomgate.threads.ThreadModel;
import io.loomgate.upstream.PoolSettings;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The documented format loads into the spec records, with documented defaults for every key left out. */
class ConfigLoaderTest {

    static final String FULL = """
            server:
              address: 0.0.0.0
              port: 8080
              threads: virtual          # virtual | platform | cached
              platform-threads: 200
              max-connections: 10000
              backlog: 4096
              header-timeout: 10s
              idle-timeout: 60s
              read-timeout: 60s
              drain-timeout: 30s
              trusted-proxies: [ "10.0.0.0/8", "127.0.0.1" ]
              max-request-line: 8192
              max-header-size: 65536
              max-headers: 100
            admin: { address: 127.0.0.1, port: 9901 }
            access-log: { enabled: true, format: combined }
            upstream:
              max-connections: 4096
              max-idle: 4096
              idle-timeout: 60s
              connect-timeout: 2s
            routes:
              - id: users
                uri: http://127.0.0.1:8082
                order: 0
                predicates: [ "Path=/users/**", "Method=GET,POST" ]
                filters:
                  - StripPrefix=1
                  - name: AddRequestHeader
                    args: { name: X-Foo, value: bar }
                timeout: 2s
                preserve-host: true
                max-in-flight: 0
                queue-timeout: 0s
            """;

    /** The minimal file of the gateway issue, which must load as is; ServeIT runs the jar with the same file. */
    static final String MINIMAL = readResource("/gateway-minimal.yaml");

    private static String readResource(String name) {
        try (java.io.InputStream in = ConfigLoaderTest.class.getResourceAsStream(name)) {
            return new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Test
    void theFullExampleLoads() throws ConfigException {
        GatewayConfig c = ConfigLoader.parse(FULL, "gateway.yaml", Map.of());
        assertThat(c.source()).isEqualTo(Path.of("gateway.yaml"));
        GatewayConfig.ServerSpec s = c.server();
        assertThat(s.listener().address()).isEqualTo("0.0.0.0");
        assertThat(s.listener().port()).isEqualTo(8080);
        assertThat(s.threads()).isEqualTo(ThreadModel.VIRTUAL);
        assertThat(s.listener().maxConnections()).isEqualTo(10_000);
        assertThat(s.listener().backlog()).isEqualTo(4096);
        assertThat(s.listener().headerTimeout()).isEqualTo(Duration.ofSeconds(10));
        assertThat(s.listener().idleTimeout()).isEqualTo(Duration.ofSeconds(60));
        assertThat(s.listener().readTimeout()).isEqualTo(Duration.ofSeconds(60));
        assertThat(s.drainTimeout()).isEqualTo(Duration.ofSeconds(30));
        assertThat(s.listener().lingerTimeout()).as("linger-timeout's default").isEqualTo(Duration.ofSeconds(10));
        assertThat(ConfigLoader.parse("server:\n  linger-timeout: 1500ms\nroutes: []\n", "gateway.yaml", Map.of())
                .server().listener().lingerTimeout()).isEqualTo(Duration.ofMillis(1500));
        assertThat(s.trustedProxies()).extracting(Cidr::toString).containsExactly("10.0.0.0/8", "127.0.0.1/32");
        assertThat(s.listener().limits()).isEqualTo(HttpLimits.DEFAULTS);
        assertThat(c.admin()).isEqualTo(new GatewayConfig.AdminSpec("127.0.0.1", 9901, java.time.Duration.ofMillis(20)));
        assertThat(c.accessLog()).isEqualTo(new GatewayConfig.AccessLogSpec(true, "combined"));
        assertThat(c.upstreamDefaults()).isEqualTo(PoolSettings.DEFAULTS);

        assertThat(c.routes()).hasSize(1);
        RouteSpec r = c.routes().get(0);
        assertThat(r.id()).isEqualTo("users");
        assertThat(r.line()).isEqualTo(24);
        assertThat(r.uris()).containsExactly(URI.create("http://127.0.0.1:8082"));
        assertThat(r.order()).isZero();
        assertThat(r.predicates()).containsExactly(
                new RouteSpec.ComponentSpec("Path", Map.of("_genkey_0", "/users/**"), 27),
                new RouteSpec.ComponentSpec("Method", Map.of("_genkey_0", "GET", "_genkey_1", "POST"), 27));
        assertThat(r.filters()).containsExactly(
                new RouteSpec.ComponentSpec("StripPrefix", Map.of("_genkey_0", "1"), 29),
                new RouteSpec.ComponentSpec("AddRequestHeader", Map.of("name", "X-Foo", "value", "bar"), 30,
                        Map.of("name", 31, "value", 31)));
        assertThat(r.filters().get(1).args().keySet()).containsExactly("name", "value");
        assertThat(r.timeout()).isEqualTo(Duration.ofSeconds(2));
        assertThat(r.preserveHost()).isTrue();
        assertThat(r.maxInFlight()).isZero();
        assertThat(r.queueTimeout()).isEqualTo(Duration.ZERO);
    }

    @Test
    void theMinimalFileLoadsWithDefaults() throws ConfigException {
        GatewayConfig c = ConfigLoader.parse(MINIMAL, "gateway.yaml", Map.of());
        assertThat(c.server().listener().port()).isEqualTo(8080);
        assertThat(c.server().listener().address()).isEqualTo("0.0.0.0");
        assertThat(c.server().threads()).isEqualTo(ThreadModel.VIRTUAL);
        assertThat(c.server().trustedProxies()).isEmpty();
        assertThat(c.admin().enabled()).isTrue();
        assertThat(c.accessLog().format()).isEqualTo("combined");
        assertThat(c.upstreamDefaults()).isEqualTo(PoolSettings.DEFAULTS);
        assertThat(c.routes()).extracting(RouteSpec::id).containsExactly("users", "default");
        RouteSpec fallback = c.routes().get(1);
        assertThat(fallback.uris()).containsExactly(URI.create("http://127.0.0.1:8081"));
        assertThat(fallback.timeout()).isEqualTo(Duration.ofSeconds(30));
        assertThat(fallback.preserveHost()).isTrue();
        assertThat(fallback.filters()).isEmpty();
        assertThat(fallback.line()).isEqualTo(9);
    }

    @Test
    void environmentVariablesReplacePlaceholders() throws ConfigException {
        GatewayConfig c = ConfigLoader.parse(MINIMAL.replace("port: 8080", "port: ${PORT}"), "gateway.yaml",
                Map.of("PORT", "9090", "DEFAULT_URI", "http://backend:7000"));
        assertThat(c.server().listener().port()).isEqualTo(9090);
        assertThat(c.routes().get(1).uris()).containsExactly(URI.create("http://backend:7000"));
    }

    @Test
    void anEmptyVariableCountsAsSetAndSeveralPlaceholdersMayShareAValue() throws ConfigException {
        String yaml = """
                server:
                  address: "${HOST:127.0.0.1}"
                routes:
                  - id: r
                    uri: http://${UP_HOST}:${UP_PORT:80}
                    filters: [ "AddRequestHeader=X-Env, [${EMPTY}]" ]
                """;
        GatewayConfig c = ConfigLoader.parse(yaml, "g.yaml", Map.of("UP_HOST", "up", "EMPTY", ""));
        assertThat(c.server().listener().address()).isEqualTo("127.0.0.1");
        assertThat(c.routes().get(0).uris()).containsExactly(URI.create("http://up:80"));
        assertThat(c.routes().get(0).filters().get(0).args()).containsEntry("_genkey_1", "[]");
    }

    @Test
    void routesMayBeEmptyAndSectionsMayBeLeftOut() throws ConfigException {
        GatewayConfig c = ConfigLoader.parse("routes: []\n", "g.yaml", Map.of());
        assertThat(c.routes()).isEmpty();
        assertThat(c.server().listener().port()).isEqualTo(8080);
    }

    @Test
    void keysBindRelaxedlyAsInSpringBoot() throws ConfigException {
        String yaml = """
                server:
                  maxConnections: 5
                  header_timeout: 250ms
                routes:
                  - id: r
                    uris: [ "http://a:1", "http://[::1]:2/", "http://my_service" ]
                    preserveHost: false
                    maxInFlight: 3
                    queue-timeout: 1m
                """;
        GatewayConfig c = ConfigLoader.parse(yaml, "g.yaml", Map.of());
        assertThat(c.server().listener().maxConnections()).isEqualTo(5);
        assertThat(c.server().listener().headerTimeout()).isEqualTo(Duration.ofMillis(250));
        RouteSpec r = c.routes().get(0);
        assertThat(r.preserveHost()).isFalse();
        assertThat(r.maxInFlight()).isEqualTo(3);
        assertThat(r.queueTimeout()).isEqualTo(Duration.ofMinutes(1));
        assertThat(r.uris()).extracting(URI::toString)
                .containsExactly("http://a:1", "http://[::1]:2", "http://my_service:80");
    }

    @Test
    void platformThreadsSizesThePlatformModel() throws ConfigException {
        assertThat(ConfigLoader.parse("server: { threads: platform, platform-threads: 64 }\n", "g", Map.of())
                .server().threads()).isEqualTo(new ThreadModel.Platform(64));
        assertThat(ConfigLoader.parse("server: { threads: platform }\n", "g", Map.of())
                .server().threads()).isEqualTo(new ThreadModel.Platform(200));
        assertThat(ConfigLoader.parse("server: { threads: cached, platform-threads: 64 }\n", "g", Map.of())
                .server().threads()).isInstanceOf(ThreadModel.Cached.class);
    }

    @Test
    void yaml11BooleansAreAccepted() throws ConfigException {
        assertThat(ConfigLoader.parse("access-log: { enabled: no }\n", "g", Map.of()).accessLog().enabled()).isFalse();
        assertThat(ConfigLoader.parse("access-log: { enabled: on }\n", "g", Map.of()).accessLog().enabled()).isTrue();
        assertThat(ConfigLoader.parse("access-log: { enabled: \"False\" }\n", "g", Map.of()).accessLog().enabled())
                .isFalse();
    }

    @Test
    void durationsTakeSpringUnits() throws ConfigException {
        assertThat(Durations.parse("250us")).isEqualTo(Duration.ofNanos(250_000));
        assertThat(Durations.parse("500ms")).isEqualTo(Duration.ofMillis(500));
        assertThat(Durations.parse("2s")).isEqualTo(Duration.ofSeconds(2));
        assertThat(Durations.parse("1m")).isEqualTo(Duration.ofMinutes(1));
        assertThat(Durations.parse("1h")).isEqualTo(Duration.ofHours(1));
        assertThat(Durations.parse("1d")).isEqualTo(Duration.ofDays(1));
        assertThat(Durations.parse("PT1.5S")).isEqualTo(Duration.ofMillis(1500));
    }

    @Test
    void loadReadsAFileAndNamesItAsGiven(@TempDir Path dir) throws IOException, ConfigException {
        Path file = dir.resolve("gateway.yaml");
        Files.writeString(file, MINIMAL);
        assertThat(ConfigLoader.load(file).source()).isEqualTo(file);
    }
}
