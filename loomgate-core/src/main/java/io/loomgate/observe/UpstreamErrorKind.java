package io.loomgate.observe;

import io.loomgate.proxy.ProxyFailure;
import java.util.Locale;

/**
 * The {@code kind} label of {@code loomgate_upstream_errors_total}: what went wrong with the origin, coarser than
 * {@link ProxyFailure.Kind}. The meters' table is made from {@link #values()}, so a kind added here has its slot; a
 * failure kind added to {@link ProxyFailure.Kind} does not compile until {@link #of} places it.
 */
enum UpstreamErrorKind {
    /** The origin refused the connection or was unreachable. */
    REFUSED,
    /** Connecting, or waiting for the response head, took too long. */
    TIMEOUT,
    /** The origin closed or reset the connection, before or after the response head. */
    RESET,
    /** The response head broke RFC 9112. */
    BAD_RESPONSE,
    /** Every connection slot to the endpoint stayed busy until the deadline. */
    POOL_EXHAUSTED,
    /** The TLS handshake failed: an expired, misnamed or untrusted certificate, no common protocol. */
    TLS;

    /** The label value, e.g. {@code bad_response}. */
    final String label = name().toLowerCase(Locale.ROOT);

    /** The upstream error of a failure, or null when the failure was not the upstream's. */
    static UpstreamErrorKind of(ProxyFailure.Kind kind) {
        return switch (kind) {
            case CONNECT_REFUSED -> REFUSED;
            case CONNECT_TIMEOUT, UPSTREAM_TIMEOUT -> TIMEOUT;
            case UPSTREAM_RESET, UPSTREAM_ABORTED -> RESET;
            case BAD_RESPONSE -> BAD_RESPONSE;
            case POOL_EXHAUSTED -> POOL_EXHAUSTED;
            case UPSTREAM_TLS -> TLS;
            case BAD_REQUEST, BODY_TOO_LARGE, NO_ROUTE, OVERLOADED, CIRCUIT_OPEN, DEADLINE_EXCEEDED, CLIENT_ABORTED,
                 CLIENT_TIMEOUT, DRAIN_CUT, LOOP_DETECTED, INTERNAL -> null;
        };
    }
}
