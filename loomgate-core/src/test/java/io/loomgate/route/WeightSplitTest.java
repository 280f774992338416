package io.loomgate.route;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Weight groups: one route of a group is drawn per request, with probability weight / sum. */
class WeightSplitTest {

    private static RoutePredicate weight(String group, int weight) {
        return WeightPredicate.FACTORY.create(Map.of("group", group, "weight", String.valueOf(weight)));
    }

    @Test
    void splitsRequestsByWeight() {
        RouteTable table = new RouteTable(List.of(
                RouteTableTest.route("v1", 0, RouteTableTest.path("/api/**"), weight("api", 8)),
                RouteTableTest.route("v2", 0, RouteTableTest.path("/api/**"), weight("api", 2)),
                RouteTableTest.route("fallback", 1)), new Random(42));
        Map<String, Integer> counts = new HashMap<>();
        for (int i = 0; i < 10_000; i++) {
            counts.merge(table.match(Requests.get("/api/x")).route().id(), 1, Integer::sum);
        }
        assertThat(counts.get("v1")).isBetween(7_600, 8_400);
        assertThat(counts.get("v2")).isBetween(1_600, 2_400);
        assertThat(counts).doesNotContainKey("fallback");
    }

    @Test
    void aRouteOfWeightZeroIsNeverDrawn() {
        RouteTable table = new RouteTable(List.of(
                RouteTableTest.route("off", 0, weight("g", 0)),
                RouteTableTest.route("on", 0, weight("g", 1))), new Random(1));
        for (int i = 0; i < 1_000; i++) {
            assertThat(table.match(Requests.get("/")).route().id()).isEqualTo("on");
        }
    }

    @Test
    void whenTheDrawnRoutesOtherPredicatesFailNoRouteOfTheGroupMatches() {
        // As in Spring Cloud Gateway the draw comes first: "post-only" drawn for a GET sends it past the group.
        RouteTable table = new RouteTable(List.of(
                RouteTableTest.route("post-only", 0, MethodPredicate.FACTORY.create(Map.of("methods", "POST")),
                        weight("g", 1)),
                RouteTableTest.route("any", 0, weight("g", 1)),
                RouteTableTest.route("fallback", 1)), new Random(7));
        Map<String, Integer> counts = new HashMap<>();
        for (int i = 0; i < 2_000; i++) {
            counts.merge(table.match(Requests.get("/")).route().id(), 1, Integer::sum);
        }
        assertThat(counts).containsOnlyKeys("any", "fallback");
        assertThat(counts.get("fallback")).isBetween(800, 1_200);
    }

    @Test
    void groupsDrawIndependently() {
        RouteTable table = new RouteTable(List.of(
                RouteTableTest.route("a1", 0, RouteTableTest.path("/a"), weight("a", 1)),
                RouteTableTest.route("a2", 0, RouteTableTest.path("/a"), weight("a", 1)),
                RouteTableTest.route("b1", 0, RouteTableTest.path("/b"), weight("b", 1)),
                RouteTableTest.route("b2", 0, RouteTableTest.path("/b"), weight("b", 3))), new Random(3));
        Map<String, Integer> counts = new HashMap<>();
        for (int i = 0; i < 4_000; i++) {
            counts.merge(table.match(Requests.get("/b")).route().id(), 1, Integer::sum);
        }
        assertThat(counts).containsOnlyKeys("b1", "b2");
        assertThat(counts.get("b2")).isBetween(2_700, 3_300);
    }

    @Test
    void weightsMustBeNonNegativeIntegers() {
        assertThatThrownBy(() -> weight("g", -1)).hasMessage("weight: expected an integer >= 0, got '-1'");
        assertThatThrownBy(() -> WeightPredicate.FACTORY.create(Map.of("weight", "1")))
                .hasMessage("missing argument 'group'");
    }
}
