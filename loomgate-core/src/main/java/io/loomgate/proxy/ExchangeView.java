package io.loomgate.proxy;

import io.loomgate.http.ConnectionAttributes;

/** A view of one exchange for listeners (metrics, access log, tracing): read-only but for their own attributes. */
public interface ExchangeView {

    /** The route id, or null before a route matched (or when none did). */
    String routeId();

    /**
     * The configuration generation of the routing table whose route the exchange matched (1 for the one the gateway
     * started with, one more for each applied reload); 0 when no route matched (a 404, a request the request screen
     * refused) or where there is no table.
     */
    default int configGeneration() {
        return 0;
    }

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
     * The gateway's own span id (16 hex digits) for this exchange, its server span, or null before the trace ids were
     * drawn (a request the request screen answered). Logs and traces report this one.
     */
    default String spanId() {
        return null;
    }

    /** The client's span id from a valid incoming traceparent; null when the gateway started the trace (or none). */
    default String parentSpanId() {
        return null;
    }

    /** Whether the traceparent the gateway sends upstream says sampled. */
    default boolean traceSampled() {
        return false;
    }

    /** The span id the current (or last) upstream attempt sent in its traceparent; null before the first attempt. */
    default String attemptSpanId() {
        return null;
    }

    /** The current (or last) upstream attempt's number, 0 for the first; -1 before any. */
    default int attemptNumber() {
        return -1;
    }

    /** The status of the response head the current attempt got from the origin; 0 before one (or without). */
    default int attemptStatus() {
        return 0;
    }

    /** An attribute a filter (or a listener, {@link #setAttribute}) set on the exchange, or null. */
    default Object attribute(String name) {
        return null;
    }

    /**
     * Keeps a listener's own state for this exchange under {@code name} (its own, e.g. its class name), among the
     * exchange's attributes ({@code FilterExchange.attributes()}): it lives and dies with the exchange, and follows it
     * to whichever thread reports its next event (no ThreadLocal outlives the exchange). Null removes it.
     */
    default void setAttribute(String name, Object value) {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " keeps no attributes");
    }

    /**
     * What the listeners keep about the client connection the exchange came on, shared by the connection's
     * exchanges (HTTP/1.1 keep-alive requests, HTTP/2 streams) and gone with it; null where there is none.
     */
    default ConnectionAttributes connectionAttributes() {
        return null;
    }

    /**
     * What the listeners keep about the upstream connection of the current attempt (shared by the streams of an
     * HTTP/2 connection to the origin); null before the attempt has one.
     */
    default ConnectionAttributes upstreamConnectionAttributes() {
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
