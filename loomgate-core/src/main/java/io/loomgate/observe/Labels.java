package io.loomgate.observe;

import io.loomgate.proxy.ProxyFailure;
import java.util.List;

/**
 * Label values with a bounded set of values, so a hostile or buggy client cannot grow the metric registry: methods
 * outside the standard set become {@code OTHER}, statuses become their class.
 */
final class Labels {
    /** The route label of an exchange no route matched. */
    static final String NO_ROUTE = "unmatched";
    /** The upstream label when the exchange failed before an upstream was chosen. */
    static final String NO_UPSTREAM = "unknown";

    static final List<String> METHODS = List.of(
            "GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE", "CONNECT", "OTHER");
    /** Index 0 is "no response was sent" (the client went away, or the exchange died before a head). */
    static final List<String> STATUS_CLASSES = List.of("none", "1xx", "2xx", "3xx", "4xx", "5xx");

    private Labels() {
    }

    static int methodIndex(String method) {
        int i = method == null ? -1 : METHODS.indexOf(method);
        return i < 0 ? METHODS.size() - 1 : i;
    }

    static int statusClassIndex(int status) {
        return status >= 100 && status < 600 ? status / 100 : 0;
    }

    static String route(String routeId) {
        return routeId == null ? NO_ROUTE : routeId;
    }

    static String upstream(String upstreamId) {
        return upstreamId == null ? NO_UPSTREAM : upstreamId;
    }

    /**
     * The upstream error kind of a failure, or null when the failure was not the upstream's: refused, timeout (connect
     * or response head), reset (before or after the head), bad_response, pool_exhausted, tls (handshake failed).
     */
    static String upstreamErrorKind(ProxyFailure.Kind kind) {
        return switch (kind) {
            case CONNECT_REFUSED -> "refused";
            case CONNECT_TIMEOUT, UPSTREAM_TIMEOUT -> "timeout";
            case UPSTREAM_RESET, UPSTREAM_ABORTED -> "reset";
            case BAD_RESPONSE -> "bad_response";
            case POOL_EXHAUSTED -> "pool_exhausted";
            case UPSTREAM_TLS -> "tls";
            case BAD_REQUEST, NO_ROUTE, OVERLOADED, DEADLINE_EXCEEDED, CLIENT_ABORTED, INTERNAL -> null;
        };
    }
}
