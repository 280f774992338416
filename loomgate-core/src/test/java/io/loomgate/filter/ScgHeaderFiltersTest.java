package io.loomgate.filter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.loomgate.testkit.TestExchange;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The SCG header filters issue 37 added: SetRequestHostHeader, MapRequestHeader, AddRequestHeadersIfNotPresent, DedupeResponseHeader. */
class ScgHeaderFiltersTest {

    private static TestExchange run(GatewayFilter filter, TestExchange exchange) throws IOException {
        FilterChains.run(List.of(filter), exchange, TestExchange.origin());
        return exchange;
    }

    @Test
    void setRequestHostHeaderReplacesHost() throws IOException {
        TestExchange ex = TestExchange.get("/");
        ex.request().headers().set("Host", "gateway.local");
        run(HeaderFilter.SET_REQUEST_HOST.create(Map.of("host", "example.org")), ex);
        assertThat(ex.request().headers().all("Host")).containsExactly("example.org");
    }

    @Test
    void mapRequestHeaderCopiesEachValueWhenPresent() throws IOException {
        TestExchange ex = TestExchange.get("/");
        ex.request().headers().add("Blue", "1").add("Blue", "2").add("X-Request-Red", "0");
        run(MapRequestHeaderFilter.FACTORY.create(Map.of("fromHeader", "Blue", "toHeader", "X-Request-Red")), ex);
        assertThat(ex.request().headers().all("X-Request-Red")).containsExactly("0", "1", "2");
        TestExchange without = run(MapRequestHeaderFilter.FACTORY.create(Map.of("fromHeader", "Blue",
                "toHeader", "X-Request-Red")), TestExchange.get("/"));
        assertThat(without.request().headers().contains("X-Request-Red")).isFalse();
        assertThatThrownBy(() -> MapRequestHeaderFilter.FACTORY.create(Map.of("fromHeader", "A", "toHeader",
                "Content-Length"))).hasMessageContaining("cannot be changed by a filter");
    }

    @Test
    void addRequestHeadersIfNotPresentAddsOnlyMissingOnes() throws IOException {
        assertThat(AddRequestHeadersIfNotPresentFilter.FACTORY.gathersList()).isTrue();
        TestExchange ex = TestExchange.get("/").variable("segment", "x");
        ex.request().headers().add("X-Request-Color-1", "red");
        run(AddRequestHeadersIfNotPresentFilter.FACTORY.create(Map.of("headers",
                "X-Request-Color-1:blue,X-Request-Color-2:green-{segment}")), ex);
        assertThat(ex.request().headers().all("X-Request-Color-1")).containsExactly("red");
        assertThat(ex.request().headers().all("X-Request-Color-2")).containsExactly("green-x");
        assertThatThrownBy(() -> AddRequestHeadersIfNotPresentFilter.FACTORY.create(Map.of("headers", "nocolon")))
                .hasMessage("headers: expected name:value, got 'nocolon'");
    }

    @Test
    void dedupeResponseHeaderKeepsByStrategy() throws IOException {
        for (var c : List.of(List.of("RETAIN_FIRST", "a"), List.of("RETAIN_LAST", "b"))) {
            TestExchange ex = TestExchange.get("/");
            FilterChains.run(List.of(DedupeResponseHeaderFilter.FACTORY.create(Map.of("name",
                    "Access-Control-Allow-Credentials Access-Control-Allow-Origin", "strategy", c.get(0)))), ex,
                    exchange -> {
                        TestExchange.origin().proceed(exchange);
                        exchange.response().headers().add("Access-Control-Allow-Origin", "a")
                                .add("Access-Control-Allow-Origin", "a").add("Access-Control-Allow-Origin", "b");
                    });
            assertThat(ex.response().headers().all("Access-Control-Allow-Origin")).as(c.get(0))
                    .containsExactly(c.get(1));
        }
        TestExchange unique = TestExchange.get("/");
        FilterChains.run(List.of(DedupeResponseHeaderFilter.FACTORY.create(Map.of("name", "Vary", "strategy",
                "RETAIN_UNIQUE"))), unique, exchange -> {
                    TestExchange.origin().proceed(exchange);
                    exchange.response().headers().add("Vary", "Origin").add("Vary", "Accept").add("Vary", "Origin");
                });
        assertThat(unique.response().headers().all("Vary")).containsExactly("Origin", "Accept");
        assertThatThrownBy(() -> DedupeResponseHeaderFilter.FACTORY.create(Map.of("name", "A", "strategy", "X")))
                .hasMessage("strategy: expected RETAIN_FIRST, RETAIN_LAST or RETAIN_UNIQUE, got 'X'");
    }

    @Test
    void addRequestParameterAppendsARawPairAndEncodesVariableValues() throws IOException {
        TestExchange ex = run(RequestParameterFilter.ADD.create(Map.of("name", "red", "value", "blue")),
                TestExchange.get("/a?x=%20y&z"));
        assertThat(ex.request().target()).isEqualTo("/a?x=%20y&z&red=blue");
        TestExchange none = run(RequestParameterFilter.ADD.create(Map.of("name", "red", "value", "blue")),
                TestExchange.get("/a"));
        assertThat(none.request().target()).isEqualTo("/a?red=blue");
        TestExchange variable = TestExchange.get("/a").variable("segment", "x&y=1");
        run(RequestParameterFilter.ADD.create(Map.of("name", "foo", "value", "bar-{segment}")), variable);
        assertThat(variable.request().target()).isEqualTo("/a?foo=bar-x%26y%3D1");
        assertThatThrownBy(() -> RequestParameterFilter.ADD.create(Map.of("name", "a&b", "value", "1")))
                .hasMessage("name: must not contain & = # or ?, got 'a&b'");
    }

    @Test
    void removeRequestParameterRemovesEveryPairOfThatName() throws IOException {
        TestExchange ex = run(RequestParameterFilter.REMOVE.create(Map.of("name", "red")),
                TestExchange.get("/a?red=1&blue=2&red&reddish=3"));
        assertThat(ex.request().target()).isEqualTo("/a?blue=2&reddish=3");
        TestExchange only = run(RequestParameterFilter.REMOVE.create(Map.of("name", "red")),
                TestExchange.get("/a?red=1"));
        assertThat(only.request().target()).isEqualTo("/a");
    }

    @Test
    void rewriteResponseHeaderRewritesEachValue() throws IOException {
        TestExchange ex = TestExchange.get("/");
        FilterChains.run(List.of(RewriteResponseHeaderFilter.FACTORY.create(Map.of("name", "X-Response-Red",
                "regexp", "password=[^&]+", "replacement", "password=***"))), ex, exchange -> {
                    TestExchange.origin().proceed(exchange);
                    exchange.response().headers().add("X-Response-Red", "/42?user=ford&password=omg!what&flag=true")
                            .add("X-Response-Red", "none");
                });
        assertThat(ex.response().headers().all("X-Response-Red"))
                .containsExactly("/42?user=ford&password=***&flag=true", "none");
        assertThatThrownBy(() -> RewriteResponseHeaderFilter.FACTORY.create(Map.of("name", "X-A", "regexp", "(a)",
                "replacement", "$2"))).hasMessageContaining("replacement");
        assertThatThrownBy(() -> RewriteResponseHeaderFilter.FACTORY.create(Map.of("name", "X-A", "regexp", "a",
                "replacement", "b\r\nc"))).hasMessage("replacement: header value must not contain CR, LF or NUL");
    }
}
