package io.loomgate.route;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.random.RandomGenerator;

/**
 * The Weight groups of a route table and how to draw a route from one. Immutable; drawing is as thread-safe as the
 * random generator it is given.
 */
final class WeightGroups {
    /** One group: route ids with cumulative weights, so a draw in [0, total) picks the first whose bound exceeds it. */
    private record Group(List<String> routeIds, int[] cumulative, int total) {
    }

    private final Map<String, Group> groups;
    private final RandomGenerator random;

    WeightGroups(List<Route> routes, RandomGenerator random) {
        this.random = random;
        Map<String, List<Route>> members = new LinkedHashMap<>();
        Map<String, List<Integer>> weights = new LinkedHashMap<>();
        for (Route route : routes) {
            for (RoutePredicate p : route.predicates()) {
                if (p instanceof WeightPredicate w) {
                    members.computeIfAbsent(w.group(), g -> new ArrayList<>()).add(route);
                    weights.computeIfAbsent(w.group(), g -> new ArrayList<>()).add(w.weight());
                }
            }
        }
        Map<String, Group> built = new LinkedHashMap<>();
        members.forEach((name, rs) -> {
            List<Integer> ws = weights.get(name);
            int[] cumulative = new int[ws.size()];
            long total = 0;
            for (int i = 0; i < ws.size(); i++) {
                total += ws.get(i);
                if (total > Integer.MAX_VALUE) {
                    throw new IllegalArgumentException("weights of group '" + name + "' add up to more than "
                            + Integer.MAX_VALUE);
                }
                cumulative[i] = (int) total;
            }
            built.put(name, new Group(rs.stream().map(Route::id).toList(), cumulative, (int) total));
        });
        this.groups = built;
    }

    /** Draws a route id of the group, or null when the group is unknown or all its weights are 0. */
    String draw(String group) {
        Group g = groups.get(group);
        if (g == null || g.total == 0) {
            return null;
        }
        int r = random.nextInt(g.total);
        for (int i = 0; i < g.cumulative.length; i++) {
            if (r < g.cumulative[i]) {
                return g.routeIds.get(i);
            }
        }
        throw new AssertionError("draw " + r + " beyond total " + g.total);
    }
}
