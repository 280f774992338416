package io.loomgate.route;

import java.util.List;

/**
 * Splits traffic among the routes of a group: {@code Weight=group1, 8} on one route and {@code Weight=group1, 2} on
 * another send about 80% and 20% of the requests to each. The {@link RouteTable} draws one route of the group per
 * request, with probability weight / sum; this predicate holds only on the drawn route. As in Spring Cloud Gateway,
 * the draw comes first: if the drawn route's other predicates fail, no route of the group matches that request.
 *
 * @param group  the group name
 * @param weight at least 0; a route of weight 0 is never drawn
 */
record WeightPredicate(String group, int weight) implements RoutePredicate {
    static final PredicateFactory FACTORY = new BuiltinPredicateFactory("Weight", List.of("group", "weight"), false,
            args -> new WeightPredicate(args.required("group"), args.intAtLeast("weight", 0)));

    @Override
    public boolean test(PredicateContext context) {
        return context.routeId().equals(context.weightedRoute(group));
    }
}
