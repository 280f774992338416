package io.loomgate.route;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** Path patterns match the raw path: '**' any segments, '*' one, {name} one bound, {name:regex}, trailing slash. */
class PathPredicateTest {

    private static RoutePredicate path(String patterns) {
        return PathPredicate.FACTORY.create(Map.of("patterns", patterns));
    }

    private static boolean matches(RoutePredicate p, String target) {
        return p.test(Requests.context(Requests.get(target)));
    }

    private static Map<String, String> bound(RoutePredicate p, String target) {
        Requests.Context c = Requests.context(Requests.get(target));
        assertThat(p.test(c)).as("%s matches %s", p, target).isTrue();
        return c.variables();
    }

    @Test
    void doubleStarMatchesAnyNumberOfSegments() {
        RoutePredicate p = path("/users/**");
        assertThat(matches(p, "/users")).isTrue();
        assertThat(matches(p, "/users/")).isTrue();
        assertThat(matches(p, "/users/42")).isTrue();
        assertThat(matches(p, "/users/42/orders?x=1")).isTrue();
        assertThat(matches(p, "/usersx")).isFalse();
        assertThat(matches(p, "/accounts/users")).isFalse();
        assertThat(matches(path("/**"), "/")).isTrue();
        assertThat(matches(path("/**/edit"), "/a/b/edit")).isTrue();
        assertThat(matches(path("/**/edit"), "/a/b/view")).isFalse();
    }

    @Test
    void singleStarMatchesExactlyOneSegment() {
        RoutePredicate p = path("/users/*/orders");
        assertThat(matches(p, "/users/42/orders")).isTrue();
        assertThat(matches(p, "/users/42/7/orders")).isFalse();
        assertThat(matches(p, "/users//orders")).isFalse();
        assertThat(matches(path("/img/*.png"), "/img/cat.png")).isTrue();
        assertThat(matches(path("/img/*.png"), "/img/cat.gif")).isFalse();
    }

    @Test
    void variablesBindOneRawSegment() {
        assertThat(bound(path("/users/{id}/orders/{order}"), "/users/42/orders/a%2Fb"))
                .containsExactly(Map.entry("id", "42"), Map.entry("order", "a%2Fb"));
        assertThat(matches(path("/users/{id}"), "/users/42/extra")).isFalse();
        assertThat(matches(path("/users/{id}"), "/users/")).isFalse();
    }

    @Test
    void variablesMayCarryARegex() {
        RoutePredicate p = PathPredicate.FACTORY.create(Map.of("patterns", "/users/{id:[0-9]{1,3}}"));
        assertThat(bound(p, "/users/123")).containsEntry("id", "123");
        assertThat(matches(p, "/users/1234")).isFalse();
        assertThat(matches(p, "/users/abc")).isFalse();
        assertThat(bound(path("/files/{name}.{ext:[a-z]+}"), "/files/report.pdf"))
                .containsExactly(Map.entry("name", "report"), Map.entry("ext", "pdf"));
    }

    @Test
    void nothingIsDecoded() {
        assertThat(matches(path("/a/b"), "/a%2Fb")).isFalse();
        assertThat(matches(path("/a%2Fb"), "/a%2Fb")).isTrue();
        assertThat(matches(path("/Users"), "/users")).isFalse();
    }

    @Test
    void aTrailingSlashMatchesByDefaultAndCanBeTurnedOff() {
        assertThat(matches(path("/users/{id}"), "/users/42/")).isTrue();
        RoutePredicate strict = PathPredicate.FACTORY.create(Map.of("patterns", "/users/{id}",
                "matchTrailingSlash", "false"));
        assertThat(matches(strict, "/users/42")).isTrue();
        assertThat(matches(strict, "/users/42/")).isFalse();
        RoutePredicate shorthandFlag = path("/a,/b,false");
        assertThat(matches(shorthandFlag, "/b")).isTrue();
        assertThat(matches(shorthandFlag, "/b/")).isFalse();
    }

    @Test
    void severalPatternsAnyOneMatches() {
        RoutePredicate p = path("/users/**, /accounts/{id}");
        assertThat(matches(p, "/users/1")).isTrue();
        assertThat(bound(p, "/accounts/7")).containsEntry("id", "7");
        assertThat(matches(p, "/orders/1")).isFalse();
    }

    @Test
    void nonOriginFormTargetsNeverMatch() {
        assertThat(matches(path("/**"), "*")).isFalse();
        assertThat(matches(path("/**"), "http://example.com/x")).isFalse();
    }

    @Test
    void badPatternsAreRefused() {
        assertThatThrownBy(() -> path("users/**")).hasMessage("path pattern must start with '/', got 'users/**'");
        assertThatThrownBy(() -> path("/a**")).hasMessage("'**' must be a whole segment in pattern '/a**'");
        assertThatThrownBy(() -> path("/{id")).hasMessage("unclosed '{' in pattern '/{id'");
        assertThatThrownBy(() -> path("/{id}/{id}")).hasMessage("variable 'id' appears twice in pattern '/{id}/{id}'");
        assertThatThrownBy(() -> path("/{a-b}")).hasMessageStartingWith("invalid variable name 'a-b'");
        assertThatThrownBy(() -> path("/a,,/b")).hasMessage("patterns: empty item in '/a,,/b'");
    }
}
