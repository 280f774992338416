package io.loomgate.proxy;

import io.loomgate.route.Route;
import io.loomgate.upstream.Upstream;

/**
 * A route as the proxy runs it: the configured route (with its retry and breaker policies), the upstream it forwards
 * to and its admission control, bound together once at start-up (and at each reload's swap) so a request finds them
 * through the route it matched, never by id. {@code table} is the routing table it belongs to: an exchange reports
 * its configuration generation and matches a breaker's fallback in it, through the route it holds anyway (no field
 * on the exchange: it would be 8 bytes more per request, Exchange's fields filling its 104 bytes exactly).
 */
record BoundRoute(Route route, Upstream upstream, RouteAdmission admission, BoundRoutes table) {
}
