package io.loomgate.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.route.Route;
import io.loomgate.upstream.Balancing;
import io.loomgate.upstream.UpstreamDefinition;
import java.net.URI;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The top-level {@code upstreams:} section and routes naming one by {@code uri: lb://NAME}. */
class NamedUpstreamsConfigTest {
    private static final String USERS = """
            upstream:
              max-idle: 7
            upstreams:
              users:
                uris:
                  - http://127.0.0.1:8081;weight=3
                  - http://127.0.0.1:8082
                load-balancer: round-robin
                pool:
                  max-connections: 16
                health-check:
                  path: /health
                  interval: 2s
                outlier-detection:
                  consecutive-failures: 3
                dns-refresh: off
            """;

    private static GatewayConfig parse(String yaml) throws ConfigException {
        return ConfigLoader.parse(yaml, "gateway.yaml", Map.of());
    }

    private static GatewayAssembly assemble(String yaml) throws ConfigException {
        return GatewayAssembly.build(parse(yaml));
    }

    private static String refusal(String yaml) {
        try {
            assemble(yaml);
        } catch (ConfigException e) {
            return e.getMessage();
        }
        throw new AssertionError("accepted:\n" + yaml);
    }

    @Test
    void twoRoutesOnOneNamedUpstreamShareOneDefinitionWithItsSettings() throws ConfigException {
        GatewayAssembly a = assemble(USERS + """
                routes:
                  - id: read
                    uri: lb://users
                    predicates: [ "Method=GET" ]
                  - id: write
                    uri: lb://users/
                    predicates: [ "Method=POST" ]
                """);
        assertThat(a.upstreams()).hasSize(1);
        UpstreamDefinition users = a.upstreams().getFirst();
        assertThat(a.upstreamOf().values()).allSatisfy(d -> assertThat(d).isSameAs(users));
        assertThat(users.id()).isEqualTo("users");
        assertThat(users.endpoints()).extracting(e -> e.host() + ":" + e.port())
                .containsExactly("127.0.0.1:8081", "127.0.0.1:8082");
        assertThat(users.balancing().policy()).isEqualTo(Balancing.Policy.ROUND_ROBIN);
        assertThat(users.balancing().weights()).containsExactly(3, 1);
        assertThat(users.balancing().healthCheck().interval()).isEqualTo(Duration.ofSeconds(2));
        assertThat(users.balancing().outliers().consecutiveFailures()).isEqualTo(3);
        assertThat(users.refreshesDns()).isFalse();
        assertThat(users.settings().maxConnections()).as("pool.max-connections").isEqualTo(16);
        assertThat(users.settings().maxIdle()).as("from the upstream: section").isEqualTo(7);
    }

    @Test
    void inlineUrisKeepWorkingBesideNamedUpstreams() throws ConfigException {
        GatewayConfig c = parse(USERS + """
                routes:
                  - id: users-api
                    uri: lb://users
                  - id: legacy
                    uri: http://127.0.0.1:9000
                    load-balancer: random
                """);
        assertThat(c.routes().get(0).upstream()).isEqualTo("users");
        assertThat(c.routes().get(0).uris()).isEmpty();
        assertThat(c.routes().get(1).upstream()).isNull();
        assertThat(c.routes().get(1).uris()).containsExactly(URI.create("http://127.0.0.1:9000"));
        GatewayAssembly a = GatewayAssembly.build(c);
        assertThat(a.upstreams()).extracting(UpstreamDefinition::id).containsExactly("users", "legacy");
        Route legacy = a.routes().routes().stream().filter(r -> r.id().equals("legacy")).findFirst().orElseThrow();
        assertThat(a.upstreamOf().get(legacy).balancing().policy()).isEqualTo(Balancing.Policy.RANDOM);
        assertThat(a.upstreamOf().get(legacy).settings().maxIdle()).isEqualTo(7);
    }

    @Test
    void anUpstreamNoRouteNamesIsCheckedButNotMade() throws ConfigException {
        assertThat(assemble(USERS + "routes:\n  - id: a\n    uri: http://127.0.0.1:9000\n").upstreams())
                .extracting(UpstreamDefinition::id).containsExactly("a");
        assertThat(refusal("upstreams:\n  users:\n    uri: ftp://x:1\n"))
                .isEqualTo("gateway.yaml:3: upstreams.users.uri: expected http://host:port, https://host:port or "
                        + "h2c://host:port, got 'ftp://x:1'");
    }

    @Test
    void anUnknownNameIsRefusedAtItsLineWithTheClosestName() {
        assertThat(refusal(USERS + "routes:\n  - id: a\n    uri: lb://user\n"))
                .isEqualTo("gateway.yaml:19: route 'a': uri: no upstream 'user' under upstreams: — did you mean "
                        + "'users'?");
        assertThat(refusal(USERS + "routes:\n  - id: a\n    uri: lb://billing\n"))
                .isEqualTo("gateway.yaml:19: route 'a': uri: no upstream 'billing' under upstreams: (declared: "
                        + "users)");
        assertThat(refusal(USERS + "routes:\n  - id: a\n    uri: lb://users:80/api\n"))
                .startsWith("gateway.yaml:19: route 'a': uri: expected lb://NAME, a service of the upstreams: "
                        + "section (no port, path or query)");
    }

    @Test
    void aRouteOnANamedUpstreamMayNotSetTheUpstreamsOwnKeys() {
        assertThat(refusal(USERS + "routes:\n  - id: a\n    uri: lb://users\n    load-balancer: random\n"))
                .isEqualTo("gateway.yaml:20: route 'a': load-balancer: belongs to the upstream: uri is lb://users, "
                        + "so write it under upstreams.users (line 4), where every route on it shares it");
        assertThat(refusal(USERS + "routes:\n  - id: a\n    uri: lb://users\n    health-check:\n      path: /x\n"))
                .startsWith("gateway.yaml:21: route 'a': health-check: belongs to the upstream");
    }

    @Test
    void mistakesInsideAnUpstreamNameTheirKey() {
        assertThat(refusal("upstreams:\n  users:\n    uri: http://a:1\n    load-balancr: random\n"))
                .isEqualTo("gateway.yaml:4: upstreams.users: unknown key 'load-balancr' — did you mean "
                        + "'load-balancer'?");
        assertThat(refusal("upstreams:\n  users:\n    uri: http://a:1\n    pool:\n      max-conections: 3\n"))
                .isEqualTo("gateway.yaml:5: upstreams.users.pool: unknown key 'max-conections' — did you mean "
                        + "'max-connections'?");
        assertThat(refusal("upstreams:\n  users:\n    load-balancer: random\n"))
                .isEqualTo("gateway.yaml:3: upstreams.users: needs 'uri' (one origin) or 'uris' (a list)");
        assertThat(refusal("upstreams:\n  users:\n    uris: [ \"lb://other\" ]\n"))
                .startsWith("gateway.yaml:3: upstreams.users.uris[0]: lb://NAME names a service of the upstreams: "
                        + "section");
        assertThat(refusal("upstreams:\n  \"us ers\":\n    uri: http://a:1\n"))
                .startsWith("gateway.yaml:2: upstreams: 'us ers': a service name is letters");
        assertThat(refusal("upstreams:\n  users: http://a:1\n"))
                .startsWith("gateway.yaml:2: upstreams.users: expected a mapping with uri or uris");
    }

    @Test
    void aRouteWhoseOwnUpstreamWouldTakeADeclaredNameIsRefused() {
        assertThat(refusal(USERS + "routes:\n  - id: users\n    uri: http://127.0.0.1:9000\n"))
                .isEqualTo("gateway.yaml:18: route 'users': id: its own uri makes an upstream named after the "
                        + "route, and upstreams.users (line 4) has that name too; write uri: lb://users to use it, "
                        + "or rename one of them");
    }
}
