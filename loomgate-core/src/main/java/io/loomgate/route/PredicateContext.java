package io.loomgate.route;

import io.loomgate.http.RequestHead;
import java.net.InetAddress;
import java.util.Map;

/**
 * What a predicate sees while one route is tested against one request: the request head, a place to bind template
 * variables, which route is being tested, and the request's weight draws. Made by {@link RouteTable#match} per
 * request; used by one thread.
 */
public interface PredicateContext {
    RequestHead request();

    /** Variables bound so far for the route being tested; a predicate may add to it when it holds. */
    Map<String, String> variables();

    /** The id of the route whose predicates are being tested. */
    String routeId();

    /**
     * The route drawn for this request among the routes of a {@code Weight} group: drawn once per request and group,
     * with probability weight / sum of the group's weights, so exactly one route of the group can match. Null when
     * the group is unknown or its weights sum to 0.
     */
    String weightedRoute(String group);

    /**
     * The client's IP address, honouring {@code server.trusted-proxies} (see the proxy's forwarded-header rules); null
     * when unknown, so address rules do not match.
     */
    default InetAddress clientIp() {
        return null;
    }
}
