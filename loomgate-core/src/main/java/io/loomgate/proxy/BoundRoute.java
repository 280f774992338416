package io.loomgate.proxy;

import io.loomgate.resilience.RetryFilter;
import io.loomgate.route.Route;
import io.loomgate.upstream.Upstream;

/**
 * A route as the proxy runs it: the configured route, the upstream it forwards to, its admission control and its
 * {@code Retry} filter (null when it has none), bound together once at start-up so a request finds them through the
 * route it matched, never by id.
 */
record BoundRoute(Route route, Upstream upstream, RouteAdmission admission, RetryFilter retry) {
}
