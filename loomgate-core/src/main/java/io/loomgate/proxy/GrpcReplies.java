package io.loomgate.proxy;

import io.loomgate.grpc.GrpcStatus;

/**
 * The one table of what a gRPC client is told when the gateway answers its call itself. A failure's kind says more
 * than its HTTP status, so the kind decides where it can (a route timeout is {@code DEADLINE_EXCEEDED}, not the
 * {@code UNAVAILABLE} that 504 maps to); the rest, and every filter's local reply (which only has an HTTP status),
 * go through gRPC's HTTP-to-gRPC mapping (grpc/doc/http-grpc-status-mapping.md) with two departures where the
 * gateway knows the cause: 413 (a size limit) and 429 (a rate limit, a quota) are {@code RESOURCE_EXHAUSTED}
 * (statuscodes.md: "some resource has been exhausted, perhaps a per-user quota") rather than UNKNOWN and UNAVAILABLE,
 * so clients do not retry them at once. LocalReplies writes the answer.
 */
final class GrpcReplies {
    private GrpcReplies() {
    }

    /** The status for a failure the gateway answers. */
    static GrpcStatus statusFor(ProxyFailure failure) {
        return switch (failure.kind()) {
            case NO_ROUTE -> GrpcStatus.UNIMPLEMENTED;
            // The origin accepted the call but did not answer in time (Envoy does the same since its PR 44479;
            // linkerd too): DEADLINE_EXCEEDED tells the client not to retry what already took too long.
            case UPSTREAM_TIMEOUT, DEADLINE_EXCEEDED -> GrpcStatus.DEADLINE_EXCEEDED;
            // Never reached a live origin, or lost it: the call may be tried again.
            case CONNECT_REFUSED, CONNECT_TIMEOUT, UPSTREAM_TLS, POOL_EXHAUSTED, UPSTREAM_RESET, BAD_RESPONSE,
                 UPSTREAM_ABORTED, OVERLOADED, CIRCUIT_OPEN -> GrpcStatus.UNAVAILABLE;
            case CLIENT_ABORTED, CLIENT_TIMEOUT -> GrpcStatus.CANCELLED;
            case DRAIN_CUT -> GrpcStatus.UNAVAILABLE; // the server is going away (never sent: the connection is closed)
            case INTERNAL -> GrpcStatus.INTERNAL;
            // The configuration sends the call back to the gateway: not worth trying again, as an unknown method is.
            case LOOP_DETECTED -> GrpcStatus.INTERNAL;
            case BAD_REQUEST -> statusFor(failure.status()); // 400, 405, 505: the status says which
            case BODY_TOO_LARGE -> GrpcStatus.RESOURCE_EXHAUSTED; // 413, as RequestSize's own refusal
        };
    }

    /** The status for an HTTP status the gateway (or a filter) would otherwise have answered with. */
    static GrpcStatus statusFor(int httpStatus) {
        return httpStatus == 413 || httpStatus == 429 ? GrpcStatus.RESOURCE_EXHAUSTED : mappedByClient(httpStatus);
    }

    /**
     * The status a gRPC client reports for an answer with this HTTP status and no {@code grpc-status} (a hop that
     * does not speak gRPC: a 404 page, a proxy's 503): gRPC's HTTP-to-gRPC mapping as grpc-java and grpc-go apply it,
     * with no departure, since the client, not the gateway, decides here.
     */
    static GrpcStatus mappedByClient(int httpStatus) {
        return switch (httpStatus) {
            case 400 -> GrpcStatus.INTERNAL;
            case 401 -> GrpcStatus.UNAUTHENTICATED;
            case 403 -> GrpcStatus.PERMISSION_DENIED;
            case 404 -> GrpcStatus.UNIMPLEMENTED;
            case 429, 502, 503, 504 -> GrpcStatus.UNAVAILABLE;
            default -> GrpcStatus.UNKNOWN;
        };
    }
}
