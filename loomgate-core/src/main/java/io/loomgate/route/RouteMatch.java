package io.loomgate.route;

import java.util.Map;

/** The route chosen for a request and the template variables its predicates bound. */
public record RouteMatch(Route route, Map<String, String> variables) {
}
