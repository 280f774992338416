package io.loomgate.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Spring Cloud Gateway's {@code application.yml} layout loads as Loomgate's own (issue 37), under each of SCG's
 * prefixes; a key with no equivalent is refused on its own line with why.
 */
class ScgLayoutTest {

    private static GatewayConfig load(String yaml) throws ConfigException {
        GatewayConfig config = ConfigLoader.parse(yaml, "application.yml", Map.of());
        GatewayAssembly.build(config);
        return config;
    }

    private static String refusal(String yaml) {
        try {
            load(yaml);
        } catch (ConfigException e) {
            return e.getMessage();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
        throw new AssertionError("accepted:\n" + yaml);
    }

    private static final String ROUTES = """
                  routes:
                    - id: users
                      uri: http://127.0.0.1:8082
                      predicates:
                        - Path=/users/**
                      filters:
                        - StripPrefix=1
            """;

    @Test
    void routesUnderEachOfScgsPrefixesLoad() throws Exception {
        for (String prefix : List.of("spring:\n  cloud:\n    gateway:\n",
                "spring:\n  cloud:\n    gateway:\n      server:\n        webflux:\n",
                "spring.cloud.gateway.server.webmvc:\n",
                "spring:\n  cloud.gateway.mvc:\n")) {
            String last = prefix.lines().reduce((a, b) -> b).orElseThrow();
            String indent = " ".repeat(last.length() - last.stripLeading().length() + 2);
            String yaml = prefix + ROUTES.stripIndent().lines().map(l -> indent + l + "\n")
                    .reduce("", String::concat);
            GatewayConfig config = load(yaml);
            assertThat(config.routes()).as(prefix).hasSize(1);
            RouteSpec r = config.routes().getFirst();
            assertThat(r.id()).isEqualTo("users");
            assertThat(r.uris()).containsExactly(URI.create("http://127.0.0.1:8082"));
            assertThat(r.predicates().getFirst().name()).isEqualTo("Path");
            assertThat(r.filters().getFirst().name()).isEqualTo("StripPrefix");
        }
    }

    @Test
    void defaultFiltersGlobalCorsPortTimeoutsAndRedisAreTranslated() throws Exception {
        GatewayConfig config = load("""
                server:
                  port: 8181
                spring:
                  application:
                    name: edge
                  data:
                    redis:
                      host: 127.0.0.1
                      port: 6390
                      password: s3cr@t
                      database: 2
                      timeout: 250
                  cloud:
                    gateway:
                      httpclient:
                        connect-timeout: 1500
                        response-timeout: 5s
                      default-filters:
                        - AddResponseHeader=X-Edge, yes
                      globalcors:
                        cors-configurations:
                          '[/**]':
                            allowedOrigins: "https://docs.spring.io"
                            allowedMethods:
                              - GET
                            maxAge: 600
                      routes:
                        - id: users
                          uri: http://127.0.0.1:8082
                          predicates:
                            - Path=/users/**
                        - id: slow
                          uri: http://127.0.0.1:8083
                          predicates:
                            - Path=/slow/**
                          metadata:
                            response-timeout: 200
                """);
        assertThat(config.server().listener().port()).isEqualTo(8181);
        assertThat(config.upstreamDefaults().connectTimeout()).isEqualTo(Duration.ofMillis(1500));
        assertThat(config.routes().get(0).timeout()).isEqualTo(Duration.ofSeconds(5));
        assertThat(config.routes().get(1).timeout()).isEqualTo(Duration.ofMillis(200));
        assertThat(config.routes().get(0).filters()).extracting(RouteSpec.ComponentSpec::name)
                .containsExactly("Cors", "AddResponseHeader");
        RouteSpec.ComponentSpec cors = config.routes().get(0).filters().getFirst();
        assertThat(cors.args()).containsEntry("allowed-origins", "https://docs.spring.io")
                .containsEntry("allowed-methods", "GET").containsEntry("max-age", "600s");
        assertThat(config.redis().host()).isEqualTo("127.0.0.1");
        assertThat(config.redis().port()).isEqualTo(6390);
        assertThat(config.redis().password()).isEqualTo("s3cr@t");
        assertThat(config.redis().database()).isEqualTo(2);
        assertThat(config.redis().timeout()).isEqualTo(Duration.ofMillis(250));
    }

    @Test
    void eachKeyWithoutAnEquivalentIsRefusedOnItsLineWithWhy() {
        assertThat(refusal("spring:\n  cloud:\n    gateway:\n      metrics:\n        enabled: false\n"))
                .isEqualTo("application.yml:5: spring.cloud.gateway.metrics.enabled: not supported: Loomgate's "
                        + "metrics are always on, at /metrics on the admin listener");
        assertThat(refusal("spring:\n  cloud:\n    gateway:\n      routes: []\n      globalcors:\n"
                + "        cors-configurations:\n          '[/api/**]':\n            allowedOrigins: '*'\n"))
                .isEqualTo("application.yml:7: spring.cloud.gateway.globalcors.cors-configurations.[/api/**]: "
                        + "not supported: Loomgate's global CORS policy covers every path ('[/**]'); "
                        + "give a route its own with the Cors filter");
        assertThat(refusal("spring:\n  cloud:\n    gateway:\n      globalcors:\n"
                + "        add-to-simple-url-handler-mapping: true\n"))
                .startsWith("application.yml:5: spring.cloud.gateway.globalcors.add-to-simple-url-handler-mapping: "
                        + "not supported: Loomgate answers a CORS preflight only on a route it matches");
        assertThat(refusal("spring:\n  session:\n    store-type: redis\n"))
                .isEqualTo("application.yml:3: spring.session.store-type: not supported: a Spring setting; "
                        + "Loomgate is not a Spring application");
        assertThat(refusal("spring:\n  data:\n    redis:\n      lettuce:\n        pool:\n          max-active: 8\n"))
                .startsWith("application.yml:6: spring.data.redis.lettuce.pool.max-active: not supported: a Spring "
                        + "Data Redis setting with no equivalent");
        assertThat(refusal("spring.cloud.gateway:\n  routes:\n    - id: a\n      uri: http://127.0.0.1:1\n"
                + "      metadata:\n        optionName: OptionValue\n"))
                .isEqualTo("application.yml:6: spring.cloud.gateway.routes[0].metadata.optionName: not supported: "
                        + "route metadata is for Spring code; Loomgate has none to read it");
    }

    @Test
    void scgFiltersThatNeedSpringAreRefusedWithTheLoomgateWay() {
        assertThat(refusal("spring.cloud.gateway.routes:\n  - id: a\n    uri: http://127.0.0.1:1\n"
                + "    filters:\n      - TokenRelay=\n"))
                .isEqualTo("application.yml:5: route 'a': Spring Cloud Gateway's filter 'TokenRelay' is not "
                        + "supported: it needs Spring Security's OAuth2 client and a session; check tokens at the "
                        + "gateway with JwtAuth and let the client send its own");
        assertThat(refusal("spring.cloud.gateway.routes:\n  - id: a\n    uri: http://127.0.0.1:1\n"
                + "    filters:\n      - SaveSession\n"))
                .endsWith("Spring Cloud Gateway's filter 'SaveSession' is not supported: it needs Spring Session; "
                        + "Loomgate keeps no sessions");
    }

    @Test
    void anScgRouteUrisPathIsDroppedAsScgDoes() throws Exception {
        GatewayConfig config = load("spring.cloud.gateway.routes:\n  - id: a\n"
                + "    uri: http://127.0.0.1:8080/flakey?x=1\n");
        assertThat(config.routes().getFirst().uris()).containsExactly(URI.create("http://127.0.0.1:8080"));
        // Loomgate's own layout still refuses it: there a path would be a mistake.
        assertThat(refusal("routes:\n  - id: a\n    uri: http://127.0.0.1:8080/flakey\n"))
                .contains("uri: expected http://host:port without a path");
    }

    @Test
    void theSameThingWrittenTwoWaysIsRefused() {
        assertThat(refusal("routes: []\nspring:\n  cloud:\n    gateway:\n      routes: []\n"))
                .isEqualTo("application.yml:5: spring.cloud.gateway.routes: is also written at line 1; keep one");
        assertThat(refusal("spring:\n  cloud:\n    gateway:\n      routes: []\n  cloud.gateway.routes: []\n"))
                .isEqualTo("application.yml:5: spring.cloud.gateway.routes: is written twice (first at line 4)");
        assertThat(refusal("spring:\n  cloud:\n    gateway:\n      routes: []\n      server:\n        webflux:\n"
                + "          routes: []\n"))
                .isEqualTo("application.yml:7: spring.cloud.gateway.server.webflux.routes: is also written at "
                        + "line 4; keep one");
    }

    @Test
    void laterErrorsStillPointIntoTheScgFile() {
        assertThat(refusal("spring:\n  cloud:\n    gateway:\n      routes:\n        - id: users\n"
                + "          uri: http://127.0.0.1:8082\n          predicates:\n            - Paht=/users/**\n"))
                .startsWith("application.yml:8: route 'users'");
    }

    @Test
    void importingListsWhatItDropsInsteadOfRefusing() throws Exception {
        ScgLayout.Translation t = ScgLayout.importing(YamlReader.read("spring:\n  cloud:\n    gateway:\n"
                + "      metrics:\n        enabled: true\n      routes: []\n", "application.yml", Map.of()),
                "application.yml");
        assertThat(t.dropped()).containsExactly(new ScgLayout.Dropped(5, "spring.cloud.gateway.metrics.enabled",
                "Loomgate's metrics are always on, at /metrics on the admin listener"));
    }

    /** SCG on lb:// with Spring Cloud's static discovery client: the instances become named upstreams. */
    @Test
    void simpleDiscoveryInstancesAreNamedUpstreams() throws Exception {
        GatewayConfig config = load("""
                upstreams:
                  audit:
                    uri: http://127.0.0.1:9001
                spring:
                  cloud:
                    discovery:
                      client:
                        simple:
                          instances:
                            users:
                              - uri: http://127.0.0.1:8081/ignored
                              - host: 127.0.0.1
                                port: 8443
                                secure: true
                                instance-id: users-2
                    gateway:
                      routes:
                        - id: users
                          uri: lb://users
                          predicates: [ "Path=/users/**" ]
                        - id: audit
                          uri: lb://audit
                          predicates: [ "Path=/audit/**" ]
                """);
        UpstreamSpec users = config.upstreams().get("users");
        assertThat(users.uris()).containsExactly(URI.create("http://127.0.0.1:8081"),
                URI.create("https://127.0.0.1:8443"));
        assertThat(users.balancing().policy()).isEqualTo(io.loomgate.upstream.Balancing.Policy.ROUND_ROBIN);
        assertThat(users.line()).isEqualTo(10);
        assertThat(config.upstreams()).containsOnlyKeys("audit", "users");
        assertThat(config.routes()).extracting(RouteSpec::upstream).containsExactly("users", "audit");
    }

    @Test
    void simpleDiscoveryInstancesAreRefusedOnTheirLineWhereTheyCannotBeUpstreams() {
        String head = "spring:\n  cloud:\n    discovery:\n      client:\n        simple:\n          instances:\n";
        assertThat(refusal("upstreams:\n  users:\n    uri: http://127.0.0.1:1\n" + head
                + "            users:\n              - uri: http://127.0.0.1:2\n"))
                .isEqualTo("application.yml:10: spring.cloud.discovery.client.simple.instances.users: "
                        + "upstreams.users (line 2) names it too; keep one");
        assertThat(refusal(head + "            users:\n              - uri: http://127.0.0.1:2\n"
                + "                metadata:\n                  zone: a\n"))
                .isEqualTo("application.yml:9: spring.cloud.discovery.client.simple.instances.users[0].metadata: "
                        + "not supported: instance metadata is for Spring Cloud LoadBalancer's hints; write an "
                        + "instance's weight as uri;weight=N under upstreams:");
        assertThat(refusal(head + "            users:\n              - uri: lb://users\n"))
                .isEqualTo("application.yml:8: spring.cloud.discovery.client.simple.instances.users[0].uri: "
                        + "expected http://host:port or https://host:port, got 'lb://users'");
        assertThat(refusal(head + "            users: []\n"))
                .startsWith("application.yml:7: spring.cloud.discovery.client.simple.instances.users: expected a "
                        + "list of instances");
        assertThat(refusal(head + "            users:\n              - port: 80\n"))
                .isEqualTo("application.yml:8: spring.cloud.discovery.client.simple.instances.users[0]: an "
                        + "instance needs a uri (or a host and port)");
        assertThat(refusal("spring:\n  cloud:\n    discovery:\n      enabled: false\n"))
                .startsWith("application.yml:4: spring.cloud.discovery.enabled: not supported: of Spring Cloud's "
                        + "discovery Loomgate reads only the simple client's instances");
        assertThat(refusal("spring:\n  cloud:\n    loadbalancer:\n      configurations: health-check\n"))
                .isEqualTo("application.yml:4: spring.cloud.loadbalancer.configurations: not supported: Loomgate "
                        + "balances per upstream: write load-balancer, health-check and outlier-detection under "
                        + "upstreams.NAME");
    }

    @Test
    void importingWritesSimpleDiscoveryInstancesAsUpstreams() throws Exception {
        String out = ScgImport.toNative("spring.cloud:\n  discovery.client.simple.instances:\n    users:\n"
                + "      - uri: http://127.0.0.1:8081\n  gateway.routes:\n    - id: u\n      uri: lb://users\n",
                "application.yml");
        GatewayConfig imported = ConfigLoader.parse(out, "gateway.yaml", Map.of());
        assertThat(out).doesNotContain("spring").contains("upstreams:");
        assertThat(imported.upstreams().get("users").uris()).containsExactly(URI.create("http://127.0.0.1:8081"));
    }
}
