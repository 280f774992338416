package io.loomgate.observe;

import java.time.Instant;

/**
 * One failed exchange, as the dashboard and {@code /api/stats} show it.
 *
 * @param time     when it failed
 * @param route    route id, or {@link Labels#NO_ROUTE}
 * @param method   request method
 * @param target   request target as sent
 * @param upstream upstream id, or null if none was chosen
 * @param kind     the failure kind, lower case
 * @param status   the status sent to the client, 0 if none was
 * @param message  the failure's message
 * @param traceId  the W3C trace id, or null
 */
record RecentError(Instant time, String route, String method, String target, String upstream, String kind,
                   int status, String message, String traceId) {
}
