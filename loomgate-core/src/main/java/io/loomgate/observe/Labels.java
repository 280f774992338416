package io.loomgate.observe;

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
}
