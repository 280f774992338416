package io.loomgate.filter;

import io.loomgate.testkit.TestExchange;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The path-changing filters change only the path of the target and keep the raw query byte-exact. */
class PathFiltersTest {

    private static String run(GatewayFilter filter, TestExchange exchange) throws IOException {
        FilterChains.run(List.of(filter), exchange, TestExchange.origin());
        return exchange.request().target();
    }

    private static GatewayFilter make(FilterFactory factory, Map<String, String> args) {
        return factory.create(args);
    }

    @Test
    void stripPrefixRemovesLeadingSegmentsAndKeepsTheQueryRaw() throws IOException {
        GatewayFilter strip1 = make(StripPrefixFilter.FACTORY, Map.of("parts", "1"));
        assertThat(run(strip1, TestExchange.get("/users/42?x=%20a+b&y"))).isEqualTo("/42?x=%20a+b&y");
        assertThat(run(strip1, TestExchange.get("/users/a%2Fb/c"))).isEqualTo("/a%2Fb/c");
        assertThat(run(strip1, TestExchange.get("/users"))).isEqualTo("/");
        assertThat(run(strip1, TestExchange.get("/users?q=1"))).isEqualTo("/?q=1");
        assertThat(run(strip1, TestExchange.get("/users/"))).isEqualTo("/");
        GatewayFilter strip2 = make(StripPrefixFilter.FACTORY, Map.of("parts", "2"));
        assertThat(run(strip2, TestExchange.get("/name/blue/red"))).isEqualTo("/red");
        assertThat(run(strip2, TestExchange.get("/name"))).isEqualTo("/");
    }

    @Test
    void stripPrefixLeavesAsteriskFormAlone() throws IOException {
        TestExchange options = new TestExchange("OPTIONS", "*");
        assertThat(run(new StripPrefixFilter(1), options)).isEqualTo("*");
    }

    @Test
    void stripPrefixRefusesPartsBelowOne() {
        assertThatThrownBy(() -> make(StripPrefixFilter.FACTORY, Map.of("parts", "0")))
                .hasMessage("parts: expected an integer >= 1, got '0'");
        assertThatThrownBy(() -> make(StripPrefixFilter.FACTORY, Map.of("parts", "one")))
                .hasMessage("parts: expected an integer >= 1, got 'one'");
        assertThatThrownBy(() -> make(StripPrefixFilter.FACTORY, Map.of()))
                .hasMessage("missing argument 'parts'");
    }

    @Test
    void prefixPathPrependsAndKeepsTheQuery() throws IOException {
        assertThat(run(make(PrefixPathFilter.FACTORY, Map.of("prefix", "/api")), TestExchange.get("/users?x=1")))
                .isEqualTo("/api/users?x=1");
        assertThat(run(make(PrefixPathFilter.FACTORY, Map.of("prefix", "/api/")), TestExchange.get("/users")))
                .isEqualTo("/api/users");
    }

    @Test
    void prefixPathRefusesWhatIsNotAPath() {
        assertThatThrownBy(() -> new PrefixPathFilter("api"))
                .hasMessage("prefix: expected a path starting with '/', got 'api'");
        assertThatThrownBy(() -> new PrefixPathFilter("/api?x=1"))
                .hasMessage("prefix: a path must not contain '?' or '#', got '/api?x=1'");
        assertThatThrownBy(() -> new PrefixPathFilter("/a b")).hasMessageContaining("must not contain whitespace");
    }

    @Test
    void rewritePathAcceptsBothReplacementSpellings() throws IOException {
        GatewayFilter yamlStyle = make(RewritePathFilter.FACTORY,
                Map.of("regexp", "/red/?(?<segment>.*)", "replacement", "/$\\{segment}"));
        assertThat(run(yamlStyle, TestExchange.get("/red/blue?x=%41"))).isEqualTo("/blue?x=%41");
        GatewayFilter javaStyle = make(RewritePathFilter.FACTORY,
                Map.of("regexp", "/red/?(?<segment>.*)", "replacement", "/${segment}"));
        assertThat(run(javaStyle, TestExchange.get("/red/blue/green"))).isEqualTo("/blue/green");
        GatewayFilter numbered = make(RewritePathFilter.FACTORY, Map.of("regexp", "^/v1/(.*)", "replacement", "/$1"));
        assertThat(run(numbered, TestExchange.get("/v1/a"))).isEqualTo("/a");
    }

    @Test
    void rewritePathLeavesNonMatchingPathsAndEmptyResultsBecomeSlash() throws IOException {
        GatewayFilter f = make(RewritePathFilter.FACTORY, Map.of("regexp", "^/red", "replacement", ""));
        assertThat(run(f, TestExchange.get("/blue?x"))).isEqualTo("/blue?x");
        assertThat(run(f, TestExchange.get("/red?x"))).isEqualTo("/?x");
    }

    @Test
    void rewritePathRefusesUnknownGroupsAndBadRegexes() {
        assertThatThrownBy(() -> make(RewritePathFilter.FACTORY,
                Map.of("regexp", "/(?<seg>.*)", "replacement", "/${sag}")))
                .hasMessage("replacement: '/${sag}' refers to group 'sag', which regexp '/(?<seg>.*)' does not "
                        + "define (named groups: [seg])");
        assertThatThrownBy(() -> make(RewritePathFilter.FACTORY, Map.of("regexp", "/(.*)", "replacement", "/$2")))
                .hasMessage("replacement: '/$2' refers to group 2, but regexp '/(.*)' has 1 group(s)");
        assertThatThrownBy(() -> make(RewritePathFilter.FACTORY, Map.of("regexp", "/(", "replacement", "/")))
                .hasMessageStartingWith("regexp: invalid regular expression '/('");
        assertThatThrownBy(() -> make(RewritePathFilter.FACTORY, Map.of("regexp", "/a", "replacement", "/$x")))
                .hasMessageContaining("'$' must be followed by a group number or {name}");
    }

    @Test
    void setPathFillsTheTemplateFromRouteVariables() throws IOException {
        GatewayFilter f = make(SetPathFilter.FACTORY, Map.of("template", "/api/{segment}"));
        assertThat(run(f, TestExchange.get("/red/blue?x=1").variable("segment", "blue"))).isEqualTo("/api/blue?x=1");
    }

    @Test
    void setPathFailsTheRequestWhenAVariableIsNotBound() {
        GatewayFilter f = make(SetPathFilter.FACTORY, Map.of("template", "/api/{segment}"));
        assertThatThrownBy(() -> run(f, TestExchange.get("/red/blue")))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("needs variable 'segment'");
        assertThatThrownBy(() -> make(SetPathFilter.FACTORY, Map.of("template", "api")))
                .hasMessage("template: expected a path starting with '/', got 'api'");
    }
}
