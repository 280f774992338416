package io.loomgate.route;

import io.loomgate.http.RequestHead;
import java.net.InetAddress;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The predicate context of one {@link RouteTable#match} call: one request, tested route by route. Variables are
 * cleared before each route so a route that fails leaves nothing behind; weight draws are kept for the whole request
 * so every route of a group sees the same draw. Used by one thread, for one request.
 */
final class MatchContext implements PredicateContext {
    private final RequestHead request;
    private final WeightGroups weights;
    private final InetAddress clientIp;
    /** Made when a predicate first binds a variable: most routes (and "/**") bind none. */
    private Map<String, String> variables;
    private Map<String, String> draws;
    private String routeId;

    MatchContext(RequestHead request, WeightGroups weights, InetAddress clientIp) {
        this.request = request;
        this.weights = weights;
        this.clientIp = clientIp;
    }

    @Override
    public InetAddress clientIp() {
        return clientIp;
    }

    void startRoute(String id) {
        routeId = id;
        if (variables != null) {
            variables.clear();
        }
    }

    @Override
    public RequestHead request() {
        return request;
    }

    @Override
    public Map<String, String> variables() {
        if (variables == null) {
            variables = new LinkedHashMap<>();
        }
        return variables;
    }

    /** What the current route's predicates bound so far: an empty map, not a new one, when nothing. */
    Map<String, String> boundVariables() {
        return variables == null ? Map.of() : variables;
    }

    @Override
    public String routeId() {
        return routeId;
    }

    @Override
    public String weightedRoute(String group) {
        if (draws == null) {
            draws = new HashMap<>(4);
        }
        // computeIfAbsent stores nothing for a null draw, so keep the null explicitly: one draw per group.
        if (draws.containsKey(group)) {
            return draws.get(group);
        }
        String drawn = weights.draw(group);
        draws.put(group, drawn);
        return drawn;
    }
}
