package io.loomgate.route;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Routes are tried by order, equal orders in the order given; the first whose predicates all hold wins. */
class RouteTableTest {

    static Route route(String id, int order, RoutePredicate... predicates) {
        return new Route(id, order, List.of(predicates), List.of(), Duration.ofSeconds(30), true, 0,
                Duration.ZERO);
    }

    static RoutePredicate path(String pattern) {
        return PathPredicate.FACTORY.create(Map.of("patterns", pattern));
    }

    @Test
    void lowerOrderWinsAndEqualOrdersKeepTheirPosition() {
        RouteTable table = new RouteTable(List.of(
                route("catch-all", 10, path("/**")),
                route("users-b", 0, path("/users/**")),
                route("users-a", 0, path("/users/**")),
                route("first", -1, path("/first"))));
        assertThat(table.routes()).extracting(Route::id).containsExactly("first", "users-b", "users-a", "catch-all");
        assertThat(table.match(Requests.get("/users/1")).route().id()).isEqualTo("users-b");
        assertThat(table.match(Requests.get("/other")).route().id()).isEqualTo("catch-all");
        assertThat(table.match(Requests.get("/first")).route().id()).isEqualTo("first");
    }

    @Test
    void allPredicatesMustHold() {
        RouteTable table = new RouteTable(List.of(
                route("users-post", 0, path("/users/**"), MethodPredicate.FACTORY.create(Map.of("methods", "POST"))),
                route("users", 1, path("/users/**"))));
        assertThat(table.match(Requests.request("POST", "/users")).route().id()).isEqualTo("users-post");
        assertThat(table.match(Requests.request("GET", "/users")).route().id()).isEqualTo("users");
    }

    @Test
    void matchCarriesOnlyTheWinningRoutesVariables() {
        RouteTable table = new RouteTable(List.of(
                route("posts-only", 0, path("/items/{id}"), MethodPredicate.FACTORY.create(Map.of("methods", "POST"))),
                route("items", 1, path("/items/{item}"))));
        RouteMatch m = table.match(Requests.get("/items/9"));
        assertThat(m.route().id()).isEqualTo("items");
        assertThat(m.variables()).containsExactly(Map.entry("item", "9"));
        assertThatThrownBy(() -> m.variables().put("x", "y")).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void noMatchGivesNullAndARouteWithoutPredicatesMatchesAll() {
        assertThat(new RouteTable(List.of(route("users", 0, path("/users/**")))).match(Requests.get("/x"))).isNull();
        assertThat(new RouteTable(List.of()).match(Requests.get("/x"))).isNull();
        assertThat(new RouteTable(List.of(route("all", 0))).match(Requests.get("/x")).route().id()).isEqualTo("all");
    }

    @Test
    void duplicateIdsAreRefused() {
        assertThatThrownBy(() -> new RouteTable(List.of(route("a", 0), route("a", 1))))
                .hasMessage("duplicate route id 'a'");
    }
}
