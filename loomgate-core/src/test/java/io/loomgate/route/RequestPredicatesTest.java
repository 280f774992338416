package io.loomgate.route;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.loomgate.http.RequestHead;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Method, Header and Query predicates. */
class RequestPredicatesTest {

    private static boolean test(RoutePredicate p, RequestHead request) {
        return p.test(Requests.context(request));
    }

    @Test
    void methodMatchesAnyListedMethod() {
        RoutePredicate p = MethodPredicate.FACTORY.create(Map.of("methods", "GET,post"));
        assertThat(test(p, Requests.request("GET", "/"))).isTrue();
        assertThat(test(p, Requests.request("POST", "/"))).isTrue();
        assertThat(test(p, Requests.request("DELETE", "/"))).isFalse();
        assertThatThrownBy(() -> MethodPredicate.FACTORY.create(Map.of("methods", "GET,P OST")))
                .hasMessage("methods: 'P OST' is not a method name");
        assertThatThrownBy(() -> MethodPredicate.FACTORY.create(Map.of()))
                .hasMessage("missing argument 'methods'");
    }

    @Test
    void headerWithARegexMatchesAnyValueWhole() {
        RoutePredicate p = HeaderPredicate.FACTORY.create(Map.of("header", "X-Request-Id", "regexp", "\\d+"));
        assertThat(test(p, Requests.get("/", "x-request-id", "123"))).isTrue();
        assertThat(test(p, Requests.get("/", "X-Request-Id", "abc", "X-Request-Id", "7"))).isTrue();
        assertThat(test(p, Requests.get("/", "X-Request-Id", "12a"))).isFalse();
        assertThat(test(p, Requests.get("/"))).isFalse();
    }

    @Test
    void headerWithoutARegexTestsPresence() {
        RoutePredicate p = HeaderPredicate.FACTORY.create(Map.of("header", "X-Debug"));
        assertThat(test(p, Requests.get("/", "X-Debug", ""))).isTrue();
        assertThat(test(p, Requests.get("/", "X-Other", "1"))).isFalse();
        assertThatThrownBy(() -> HeaderPredicate.FACTORY.create(Map.of("header", "X-A", "regexp", "(")))
                .hasMessageStartingWith("regexp: invalid regular expression '('");
    }

    @Test
    void queryWithARegexMatchesARawValueWhole() {
        RoutePredicate p = QueryPredicate.FACTORY.create(Map.of("param", "color", "regexp", "gree."));
        assertThat(test(p, Requests.get("/?color=green"))).isTrue();
        assertThat(test(p, Requests.get("/?size=1&color=greet&x"))).isTrue();
        assertThat(test(p, Requests.get("/?color=greenish"))).isFalse();
        assertThat(test(p, Requests.get("/?colour=green"))).isFalse();
        assertThat(test(p, Requests.get("/"))).isFalse();
        RoutePredicate raw = QueryPredicate.FACTORY.create(Map.of("param", "q", "regexp", "a%20b"));
        assertThat(test(raw, Requests.get("/?q=a%20b"))).isTrue();
        assertThat(test(raw, Requests.get("/?q=a+b"))).isFalse();
    }

    @Test
    void queryWithoutARegexTestsPresence() {
        RoutePredicate p = QueryPredicate.FACTORY.create(Map.of("param", "debug"));
        assertThat(test(p, Requests.get("/?debug"))).isTrue();
        assertThat(test(p, Requests.get("/?a=1&debug="))).isTrue();
        assertThat(test(p, Requests.get("/?debugger=1"))).isFalse();
        assertThat(test(p, Requests.get("/?x=debug"))).isFalse();
    }
}
