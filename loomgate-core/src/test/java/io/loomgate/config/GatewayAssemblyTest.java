package io.loomgate.config;

import io.loomgate.testkit.TestExchange;
import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.filter.FilterChains;
import io.loomgate.filter.FilterFactory;
import io.loomgate.filter.FilterRegistry;
import io.loomgate.filter.GatewayFilter;
import io.loomgate.http.Headers;
import io.loomgate.http.RequestHead;
import io.loomgate.route.PredicateFactory;
import io.loomgate.route.PredicateRegistry;
import io.loomgate.route.RouteMatch;
import io.loomgate.route.RoutePredicate;
import io.loomgate.upstream.Endpoint;
import io.loomgate.upstream.PoolSettings;
import io.loomgate.upstream.UpstreamDefinition;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A configuration becomes a route table and one upstream per route. */
class GatewayAssemblyTest {

    private static RequestHead get(String target) {
        return new RequestHead("GET", target, "HTTP/1.1", new Headers().add("Host", "gw"));
    }

    @Test
    void theMinimalFileAssemblesIntoRoutesAndUpstreams() throws ConfigException {
        GatewayAssembly a = GatewayAssembly.build(ConfigLoader.parse(ConfigLoaderTest.MINIMAL, "gateway.yaml",
                Map.of()));
        RouteMatch users = a.routes().match(get("/users/42?x=1"));
        assertThat(users.route().id()).isEqualTo("users");
        assertThat(a.upstreamOf().get(users.route()).id()).isEqualTo("users");
        assertThat(users.route().filters()).hasSize(1);
        assertThat(users.route().timeout()).isEqualTo(Duration.ofSeconds(2));
        assertThat(a.routes().match(get("/other")).route().id()).isEqualTo("default");
        assertThat(a.upstreams()).containsExactly(
                new UpstreamDefinition("users", List.of(new Endpoint("127.0.0.1", 8082)), PoolSettings.DEFAULTS),
                new UpstreamDefinition("default", List.of(new Endpoint("127.0.0.1", 8081)), PoolSettings.DEFAULTS));
    }

    @Test
    void endpointsDefaultToPort80AndKeepTheUpstreamSettings() throws ConfigException {
        String yaml = """
                upstream: { max-connections: 8, connect-timeout: 500ms }
                routes:
                  - id: pair
                    uris: [ "http://a", "http://b:9000" ]
                """;
        UpstreamDefinition d = GatewayAssembly.build(ConfigLoader.parse(yaml, "g.yaml", Map.of())).upstreams().get(0);
        assertThat(d.endpoints()).containsExactly(new Endpoint("a", 80), new Endpoint("b", 9000));
        assertThat(d.settings().maxConnections()).isEqualTo(8);
        assertThat(d.settings().connectTimeout()).isEqualTo(Duration.ofMillis(500));
    }

    @Test
    void builtFiltersRunAsConfigured() throws Exception {
        String yaml = """
                routes:
                  - id: red
                    uri: http://a:1
                    predicates: [ "Path=/red/{segment}" ]
                    filters:
                      - RewritePath=/red/?(?<segment>.*), /$\\{segment}
                      - PrefixPath=/api
                """;
        GatewayAssembly a = GatewayAssembly.build(ConfigLoader.parse(yaml, "g.yaml", Map.of()));
        RouteMatch m = a.routes().match(get("/red/blue?q=%20"));
        assertThat(m.variables()).containsEntry("segment", "blue");
        TestExchange ex = new TestExchange(get("/red/blue?q=%20"), m.variables());
        FilterChains.run(m.route().filters(), ex, e -> e.setResponse(io.loomgate.http.ResponseHead.of(200)));
        assertThat(ex.request().target()).isEqualTo("/api/blue?q=%20");
    }

    @Test
    void shorthandPatternsKeepCommasInsideBraces() throws ConfigException {
        String yaml = """
                routes:
                  - id: ids
                    uri: http://a:1
                    predicates: [ "Path=/users/{id:[0-9]{1,3}},/u/{id}", "Host=**.example.com" ]
                """;
        GatewayAssembly a = GatewayAssembly.build(ConfigLoader.parse(yaml, "g.yaml", Map.of()));
        RequestHead ok = new RequestHead("GET", "/users/123", "HTTP/1.1", new Headers().add("Host", "a.example.com"));
        RequestHead tooLong = new RequestHead("GET", "/users/1234", "HTTP/1.1",
                new Headers().add("Host", "a.example.com"));
        assertThat(a.routes().match(ok).variables()).containsEntry("id", "123");
        assertThat(a.routes().match(tooLong)).isNull();
    }

    @Test
    void userFactoriesAreFoundByName() throws ConfigException {
        PredicateRegistry predicates = PredicateRegistry.withBuiltIns().register(new PredicateFactory() {
            @Override
            public String name() {
                return "Beta";
            }

            @Override
            public List<String> argNames() {
                return List.of("header");
            }

            @Override
            public RoutePredicate create(Map<String, String> args) {
                String header = args.get("header");
                return c -> c.request().headers().contains(header);
            }
        });
        FilterRegistry filters = FilterRegistry.withBuiltIns().register(new FilterFactory() {
            @Override
            public String name() {
                return "Noop";
            }

            @Override
            public List<String> argNames() {
                return List.of();
            }

            @Override
            public GatewayFilter create(Map<String, String> args) {
                return (exchange, chain) -> chain.proceed(exchange);
            }
        });
        String yaml = """
                routes:
                  - id: beta
                    uri: http://a:1
                    predicates: [ "Beta=X-Beta" ]
                    filters: [ Noop ]
                  - id: main
                    uri: http://b:1
                """;
        GatewayAssembly a = GatewayAssembly.build(ConfigLoader.parse(yaml, "g.yaml", Map.of()), predicates, filters);
        RequestHead beta = get("/");
        beta.headers().add("X-Beta", "1");
        assertThat(a.routes().match(beta).route().id()).isEqualTo("beta");
        assertThat(a.routes().match(get("/")).route().id()).isEqualTo("main");
    }
}
