package io.loomgate.proxy;

import io.loomgate.route.Route;
import io.loomgate.upstream.Upstream;

/**
 * A route as the proxy runs it: the configured route (with its retry and breaker policies), the upstream it forwards
 * to and its admission control, bound together once at start-up so a request finds them through the route it
 * matched, never by id.
 */
record BoundRoute(Route route, Upstream upstream, RouteAdmission admission) {
}
