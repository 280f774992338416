package io.loomgate.filter;

import io.loomgate.testkit.TestExchange;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class HeaderFiltersTest {

    private static TestExchange run(GatewayFilter filter, TestExchange exchange) throws IOException {
        FilterChains.run(List.of(filter), exchange, TestExchange.origin());
        return exchange;
    }

    @Test
    void addRequestHeaderAppendsAfterExistingFields() throws IOException {
        TestExchange ex = TestExchange.get("/");
        ex.request().headers().add("X-Foo", "first");
        run(HeaderFilter.ADD_REQUEST.create(Map.of("name", "X-Foo", "value", "bar")), ex);
        assertThat(ex.request().headers().all("x-foo")).containsExactly("first", "bar");
    }

    @Test
    void addRequestHeaderExpandsRouteVariables() throws IOException {
        TestExchange ex = TestExchange.get("/").variable("segment", "blue");
        run(HeaderFilter.ADD_REQUEST.create(Map.of("name", "X-Color", "value", "is-{segment}")), ex);
        assertThat(ex.request().headers().first("X-Color")).isEqualTo("is-blue");
        TestExchange json = TestExchange.get("/");
        run(HeaderFilter.ADD_REQUEST.create(Map.of("name", "X-Json", "value", "{\"a\":1}")), json);
        assertThat(json.request().headers().first("X-Json")).isEqualTo("{\"a\":1}");
    }

    @Test
    void setRequestHeaderReplacesEveryField() throws IOException {
        TestExchange ex = TestExchange.get("/");
        ex.request().headers().add("X-Foo", "1").add("X-Foo", "2");
        run(HeaderFilter.SET_REQUEST.create(Map.of("name", "x-foo", "value", "3")), ex);
        assertThat(ex.request().headers().all("X-Foo")).containsExactly("3");
        TestExchange absent = run(HeaderFilter.SET_REQUEST.create(Map.of("name", "X-New", "value", "v")),
                TestExchange.get("/"));
        assertThat(absent.request().headers().first("X-New")).isEqualTo("v");
    }

    @Test
    void removeRequestHeaderRemovesEveryField() throws IOException {
        TestExchange ex = TestExchange.get("/");
        ex.request().headers().add("X-Foo", "1").add("X-Bar", "b").add("x-foo", "2");
        run(RemoveRequestHeaderFilter.FACTORY.create(Map.of("name", "X-Foo")), ex);
        assertThat(ex.request().headers().contains("X-Foo")).isFalse();
        assertThat(ex.request().headers().first("X-Bar")).isEqualTo("b");
    }

    @Test
    void responseHeaderFiltersEditTheResponseAfterProceed() throws IOException {
        TestExchange ex = TestExchange.get("/");
        FilterChains.run(List.of(
                        HeaderFilter.ADD_RESPONSE.create(Map.of("name", "X-Added", "value", "a")),
                        HeaderFilter.SET_RESPONSE.create(Map.of("name", "X-Origin", "value", "replaced")),
                        RemoveResponseHeaderFilter.FACTORY.create(Map.of("name", "X-Gone"))),
                ex, exchange -> {
                    assertThat(exchange.request().headers().contains("X-Added")).isFalse();
                    TestExchange.origin().proceed(exchange);
                    exchange.response().headers().add("X-Gone", "1").add("X-Origin", "second");
                });
        assertThat(ex.response().headers().all("X-Origin")).containsExactly("replaced");
        assertThat(ex.response().headers().first("X-Added")).isEqualTo("a");
        assertThat(ex.response().headers().contains("X-Gone")).isFalse();
    }

    @Test
    void valuesWithLineBreaksOrNulAreRefused() {
        assertThatThrownBy(() -> HeaderFilter.ADD_REQUEST.create(Map.of("name", "X-Foo", "value", "a\r\nb")))
                .hasMessage("value: header value must not contain CR, LF or NUL");
        assertThatThrownBy(() -> HeaderFilter.SET_RESPONSE.create(Map.of("name", "X-Foo", "value", "a\nb")))
                .hasMessage("value: header value must not contain CR, LF or NUL");
        assertThatThrownBy(() -> HeaderFilter.ADD_RESPONSE.create(Map.of("name", "X-Foo", "value", "a\0")))
                .hasMessage("value: header value must not contain CR, LF or NUL");
    }

    @Test
    void addResponseHeadersOverrideMustBeABooleanAndOnlyAddResponseHeaderHasIt() {
        assertThatThrownBy(() -> HeaderFilter.ADD_RESPONSE.create(
                Map.of("name", "X-Foo", "value", "a", "override", "maybe")))
                .hasMessage("override: expected true or false, got 'maybe'");
        assertThat(HeaderFilter.ADD_RESPONSE.argNames()).containsExactly("name", "value", "override");
        assertThat(HeaderFilter.ADD_REQUEST.argNames()).containsExactly("name", "value");
    }

    @Test
    void namesMustBeTokensAndFramingIsOffLimits() {
        assertThatThrownBy(() -> HeaderFilter.ADD_REQUEST.create(Map.of("name", "X Foo", "value", "a")))
                .hasMessage("name: 'X Foo' is not a valid header name (RFC 9110 token)");
        assertThatThrownBy(() -> HeaderFilter.SET_RESPONSE.create(Map.of("name", "Content-Length", "value", "1")))
                .hasMessage("name: Content-Length cannot be changed by a filter; the proxy sets message framing");
        assertThatThrownBy(() -> RemoveRequestHeaderFilter.FACTORY.create(Map.of("name", "Host")))
                .hasMessage("name: Host cannot be changed this way; HTTP/1.1 requires it");
        assertThatThrownBy(() -> HeaderFilter.ADD_REQUEST.create(Map.of("name", "X-Foo")))
                .hasMessage("missing argument 'value'");
    }
}
