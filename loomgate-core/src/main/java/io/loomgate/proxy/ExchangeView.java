package io.loomgate.proxy;

/** A read-only view of one exchange for listeners (metrics, access log, tracing). */
public interface ExchangeView {

    /** The route id, or null before a route matched (or when none did). */
    String routeId();

    String method();

    /**
     * The request head as the exchange holds it (the client's protocol version and fields: Referer, User-Agent), or
     * null where there is none.
     */
    default io.loomgate.http.RequestHead request() {
        return null;
    }

    /** The request target as the client sent it. */
    String target();

    /** The client's address as text (the socket peer, not a forwarded header). */
    String clientAddress();

    /** The upstream id, or null before one was chosen. */
    String upstreamId();

    /** The endpoint {@code host:port}, or null before one was chosen. */
    String endpoint();

    /** The status sent to the client, or 0 before a response head was sent. */
    int status();

    /** System.nanoTime() when the request head had been read. */
    long startNanos();

    /** Nanoseconds from sending the request upstream to receiving the response head; -1 if never. */
    long upstreamNanos();

    /** Nanoseconds from start to the end of the exchange (or to now while it runs). */
    long totalNanos();

    /** Request body bytes read from the client. */
    long bytesIn();

    /** Response body bytes written to the client. */
    long bytesOut();

    /** The W3C trace id (32 hex digits) of this exchange, or null. */
    String traceId();

    /**
     * The gateway's own span id for this exchange (16 hex digits): the parent id it sent upstream in
     * {@code traceparent}, so the origin's spans hang under it; null when no request went that far.
     */
    default String spanId() {
        return null;
    }

    /** What went wrong, or null. */
    ProxyFailure failure();

    /** Who called, as an authentication filter established it; null when none did. */
    default String principal() {
        return null;
    }

    /**
     * The grpc-status the client got, for a gRPC call (from the origin's trailers or trailers-only head, or the
     * gateway's own answer; 2, UNKNOWN, when the response carried none); -1 for every exchange that is not gRPC.
     */
    default int grpcStatus() {
        return -1;
    }
}
