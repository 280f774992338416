package io.loomgate.route;

import io.loomgate.http.RequestHead;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.random.RandomGenerator;

/**
 * The routes in match order: by {@link Route#order()}, routes of equal order keeping the order they were given in.
 * {@link #match} returns the first route whose predicates all hold. Immutable and thread-safe.
 */
public final class RouteTable {
    /** Per-thread generator state, reached without a ThreadLocal: ThreadLocalRandom keeps it in the Thread. */
    private static final RandomGenerator DEFAULT_RANDOM = () -> ThreadLocalRandom.current().nextLong();

    private final List<Route> routes;
    private final WeightGroups weights;

    public RouteTable(List<Route> routes) {
        this(routes, DEFAULT_RANDOM);
    }

    /**
     * A table that draws Weight groups from {@code random} (tests pass a seeded {@link java.util.Random}).
     *
     * @param random used from many threads at once, so it must be thread-safe
     * @throws IllegalArgumentException when two routes share an id
     */
    public RouteTable(List<Route> routes, RandomGenerator random) {
        Set<String> ids = new HashSet<>();
        for (Route r : routes) {
            if (!ids.add(r.id())) {
                throw new IllegalArgumentException("duplicate route id '" + r.id() + "'");
            }
        }
        List<Route> sorted = new ArrayList<>(routes);
        // List.sort is stable. A lambda of ours, not Comparator.comparingInt: that one is serializable, made by
        // LambdaMetafactory.altMetafactory, which JDK 25's AOT cache does not hold (a class spun at every start).
        sorted.sort((a, b) -> Integer.compare(a.order(), b.order()));
        this.routes = List.copyOf(sorted);
        this.weights = new WeightGroups(this.routes, random);
    }

    /** The first route (by order, then file position) whose predicates all hold, or null; no client address known. */
    public RouteMatch match(RequestHead request) {
        return match(request, null);
    }

    /** As {@link #match(RequestHead)}, for a client at {@code clientIp} (null when unknown). */
    public RouteMatch match(RequestHead request, InetAddress clientIp) {
        MatchContext context = new MatchContext(request, weights, clientIp);
        // Indexed loops over the immutable lists (here and in allHold): the for-each's iterator was 49 B of every
        // request's allocation at W8, where the JIT did not remove it (stop 50's allocation profile).
        for (int i = 0, n = routes.size(); i < n; i++) {
            Route route = routes.get(i);
            context.startRoute(route.id());
            if (allHold(route, context)) {
                Map<String, String> bound = context.boundVariables();
                return new RouteMatch(route, bound.isEmpty() ? Map.of()
                        : Collections.unmodifiableMap(new LinkedHashMap<>(bound)));
            }
        }
        return null;
    }

    private static boolean allHold(Route route, MatchContext context) {
        List<RoutePredicate> predicates = route.predicates();
        for (int i = 0, n = predicates.size(); i < n; i++) {
            if (!predicates.get(i).test(context)) {
                return false;
            }
        }
        return true;
    }

    /** In match order. */
    public List<Route> routes() {
        return routes;
    }
}
