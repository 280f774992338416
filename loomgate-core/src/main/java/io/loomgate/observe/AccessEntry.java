package io.loomgate.observe;

import io.loomgate.http.RequestHead;
import io.loomgate.proxy.ExchangeView;
import java.util.Locale;

/**
 * One access-log line's facts, copied out of the live exchange view on the request thread (the view may not be kept)
 * and formatted later on the writer thread.
 *
 * @param startMillis   wall-clock time the request head was read, epoch millis
 * @param client        client address
 * @param method        request method
 * @param target        request target as sent
 * @param status        status sent, 0 if none was
 * @param bytesOut      response body bytes sent
 * @param bytesIn       request body bytes read
 * @param totalNanos    whole exchange
 * @param upstreamNanos request sent upstream to response head, -1 if never
 * @param route         route id or null
 * @param upstream      upstream id or null
 * @param endpoint      endpoint host:port or null
 * @param traceId       W3C trace id or null
 * @param spanId        the gateway's span id for the exchange (the parent id it sent upstream in traceparent), or null
 * @param failure       failure kind, lower case, or null
 * @param principal     who called, as an authentication filter established it, or null
 * @param grpcStatus    the grpc-status of a gRPC call, -1 for other exchanges
 * @param protocol      the client's protocol version ({@code HTTP/1.1}), or null
 * @param referer       the request's Referer, or null
 * @param userAgent     the request's User-Agent, or null
 * @param generation    the configuration generation of the routing table the exchange matched against, 0 if none
 */
record AccessEntry(long startMillis, String client, String method, String target, int status, long bytesOut,
                   long bytesIn, long totalNanos, long upstreamNanos, String route, String upstream, String endpoint,
                   String traceId, String spanId, String failure, String principal, int grpcStatus,
                   String protocol, String referer, String userAgent, int generation) {

    AccessEntry(long startMillis, String client, String method, String target, int status, long bytesOut,
                long bytesIn, long totalNanos, long upstreamNanos, String route, String upstream, String endpoint,
                String traceId, String failure, String principal, int grpcStatus) {
        this(startMillis, client, method, target, status, bytesOut, bytesIn, totalNanos, upstreamNanos, route,
                upstream, endpoint, traceId, null, failure, principal, grpcStatus, null, null, null, 0);
    }

    static AccessEntry of(ExchangeView x, long nowMillis) {
        long total = x.totalNanos();
        RequestHead head = x.request();
        return new AccessEntry(nowMillis - total / 1_000_000, x.clientAddress(), x.method(), x.target(), x.status(),
                x.bytesOut(), x.bytesIn(), total, x.upstreamNanos(), x.routeId(), x.upstreamId(), x.endpoint(),
                x.traceId(), x.spanId(), x.failure() == null ? null : x.failure().kind().name().toLowerCase(Locale.ROOT),
                x.principal(), x.grpcStatus(), head == null ? null : head.version(),
                head == null ? null : head.headers().first("Referer"),
                head == null ? null : head.headers().first("User-Agent"), x.configGeneration());
    }
}
