package io.loomgate.route;

import io.loomgate.filter.GatewayFilter;
import java.time.Duration;
import java.util.List;

/**
 * One configured route: when it applies (predicates, all must hold), what to do to the exchange (filters, in order)
 * and where to send it (an upstream, by id). Immutable.
 *
 * @param id           unique name, used in logs and metrics
 * @param order        lower first; routes of equal order keep their file order
 * @param predicates   all must match
 * @param filters      applied in order around the forwarding core
 * @param upstreamId   the upstream that serves this route
 * @param timeout      how long to wait for the response head from the origin
 * @param preserveHost send the client's Host upstream (true) or the upstream's authority (false)
 * @param maxInFlight  most requests forwarded at once on this route, 0 for no limit
 * @param queueTimeout how long a request over maxInFlight waits for a slot before 503
 */
public record Route(String id, int order, List<RoutePredicate> predicates, List<GatewayFilter> filters,
                    String upstreamId, Duration timeout, boolean preserveHost, int maxInFlight,
                    Duration queueTimeout) {
    public Route {
        predicates = List.copyOf(predicates);
        filters = List.copyOf(filters);
    }
}
