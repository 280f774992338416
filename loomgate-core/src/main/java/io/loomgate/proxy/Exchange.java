package io.loomgate.proxy;

import io.loomgate.filter.FilterExchange;
import io.loomgate.http.RequestHead;
import io.loomgate.http.ResponseHead;
import io.loomgate.http1.BodyFraming;
import io.loomgate.http1.BodyInputStream;
import io.loomgate.server.ServerExchange;
import io.loomgate.threads.Deadline;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The state of one proxied request, passed explicitly through every phase (never kept in a ThreadLocal). Filters see
 * it as a {@link FilterExchange}, listeners as an {@link ExchangeView}. Owned by the request's thread.
 */
final class Exchange implements FilterExchange, ExchangeView {
    final ServerExchange downstream;
    final long startNanos;
    private final String originalTarget;
    RequestHead request;
    /** The route matched, with its upstream and admission; null before (or without) a match. */
    BoundRoute route;
    /** Set when a circuit breaker's fallback moved the exchange to another route: the one the client matched,
     *  which metrics and logs keep reporting (its in-flight count went up at routeMatched). */
    BoundRoute matchedRoute;
    Map<String, String> variables = Map.of();
    /**
     * The current (or last) try upstream; it owns the connection, the exchange only points at it. Volatile: a gRPC
     * deadline's watchdog reads it to cancel the attempt in flight ({@link #deadlinePassed()}).
     */
    volatile UpstreamAttempt attempt;
    ResponseHead response;
    BodyFraming upstreamFraming;
    ResponseHead localReply;
    byte[] localReplyBody;
    boolean upgradeRequested;
    /** The protocols the request asked to switch to, as forwarded (those its route allows). */
    List<String> upgrades = List.of();
    /** The origin answered before it had the whole request body: its connection cannot be reused. */
    boolean requestBodyCut;
    long upstreamNanos = -1;
    long endNanos;
    long bytesIn;
    long bytesOut;
    int status;
    String traceId;
    ProxyFailure failure;
    private Map<String, Object> attributes;
    private String clientIp;
    private String principal;
    InetAddress client; // resolved once, before routing (ForwardedHeaders.clientIp)
    long requestBodyLimit = -1;
    private LimitedRequestBody limitedBody;
    /** A gRPC call (application/grpc over HTTP/2): the gateway's own answers are gRPC statuses, never HTML. */
    boolean grpc;
    /** When the gRPC call must have ended (System.nanoTime(), from its grpc-timeout); 0 when it sent none. */
    long grpcDeadline;
    /** {@link #grpcDeadline} on the shared watchdog; null without one. Closed when the exchange ends. */
    Deadline deadline;
    /** Set by the watchdog once the gRPC deadline passed (it then cancelled the attempt in flight). */
    volatile boolean deadlineExpired;
    /** The grpc-status the client got (-1 until known, and for every exchange that is not gRPC). */
    int grpcStatus = -1;
    /** The response body being relayed: a gRPC call that fails after its head still ends with trailers here. */
    ServerExchange.ResponseBody responseOut;

    Exchange(ServerExchange downstream, long startNanos) {
        this.downstream = downstream;
        this.startNanos = startNanos;
        this.request = downstream.request();
        this.originalTarget = request.target();
    }

    /**
     * The watchdog's action when the gRPC deadline passes (on the watchdog's thread, must not block): cancels the
     * upstream attempt in flight, which ends whatever the exchange's thread waits for upstream; that thread then
     * reports the failure as {@code DEADLINE_EXCEEDED}.
     */
    void deadlinePassed() {
        deadlineExpired = true;
        UpstreamAttempt a = attempt;
        if (a != null) {
            a.abort();
        }
    }

    /** Set when the client cancelled the request (HTTP/2 RST_STREAM): no attempt is started or retried after it. */
    volatile boolean clientCancelled;

    /**
     * The client cancelled the request (on its connection's reader thread, must not block): the attempt in flight is
     * aborted, which ends whatever the exchange's thread waits for upstream. Not an interrupt: the thread may be
     * blocked writing to an upstream HTTP/2 connection other exchanges share, whose socket an interrupt would close.
     * Written before the attempt is read, and {@link UpstreamForwarder} sets the attempt before it reads this, so a
     * new attempt is either aborted here or sees the flag.
     */
    void clientCancelled() {
        clientCancelled = true;
        UpstreamAttempt a = attempt;
        if (a != null) {
            a.abort();
        }
    }

    /** Whether the gRPC deadline (if any) has passed, as the watchdog saw it or the clock says. */
    boolean pastDeadline() {
        return deadlineExpired || grpcDeadline != 0 && System.nanoTime() - grpcDeadline >= 0;
    }

    // ---- FilterExchange ----

    @Override
    public String routeId() {
        BoundRoute reported = matchedRoute != null ? matchedRoute : route;
        return reported == null ? null : reported.route().id();
    }

    @Override
    public RequestHead request() {
        return request;
    }

    @Override
    public void setRequest(RequestHead request) {
        this.request = request;
    }

    @Override
    public String originalTarget() {
        return originalTarget;
    }

    @Override
    public Map<String, String> uriVariables() {
        return variables;
    }

    @Override
    public InetSocketAddress remoteAddress() {
        return downstream.remoteAddress();
    }

    @Override
    public ResponseHead response() {
        return response != null ? response : localReply;
    }

    @Override
    public void setResponse(ResponseHead response) {
        if (this.response != null) {
            this.response = response;
        } else if (localReply != null) {
            this.localReply = response;
        } else {
            throw new IllegalStateException("no response yet: setResponse is for after proceed returns");
        }
    }

    @Override
    public void replyLocally(ResponseHead head, byte[] body) {
        if (response != null) {
            throw new IllegalStateException("the upstream already answered; edit response() instead");
        }
        this.localReply = head;
        this.localReplyBody = body;
    }

    @Override
    public Map<String, Object> attributes() {
        if (attributes == null) {
            attributes = new HashMap<>();
        }
        return attributes;
    }

    @Override
    public String principal() {
        return principal;
    }

    @Override
    public void setPrincipal(String name) {
        this.principal = name;
    }

    @Override
    public InetAddress clientIp() {
        return client;
    }

    /**
     * The client's request body as the upstream attempts read it: capped by {@link #limitRequestBody} when a filter
     * set a cap (one wrapper per exchange, so a replayed retry counts the same bytes once).
     */
    BodyInputStream clientBody() {
        if (requestBodyLimit < 0) {
            return downstream.requestBody();
        }
        if (limitedBody == null) {
            limitedBody = new LimitedRequestBody(downstream.requestBody(), requestBodyLimit);
        }
        return limitedBody;
    }

    @Override
    public void limitRequestBody(long maxBytes) {
        if (maxBytes < 0) {
            throw new IllegalArgumentException("a body limit cannot be negative: " + maxBytes);
        }
        requestBodyLimit = requestBodyLimit < 0 ? maxBytes : Math.min(requestBodyLimit, maxBytes);
    }

    // ---- ExchangeView ----

    @Override
    public String method() {
        return request.method();
    }

    @Override
    public String target() {
        return originalTarget;
    }

    @Override
    public String clientAddress() {
        if (clientIp == null) {
            clientIp = downstream.remoteAddress().getAddress().getHostAddress();
        }
        return clientIp;
    }

    @Override
    public String upstreamId() {
        return route == null ? null : route.upstream().id();
    }

    @Override
    public String endpoint() {
        return attempt == null ? null : attempt.endpoint().label();
    }

    @Override
    public int status() {
        return status;
    }

    @Override
    public long startNanos() {
        return startNanos;
    }

    @Override
    public long upstreamNanos() {
        return upstreamNanos;
    }

    @Override
    public long totalNanos() {
        return (endNanos == 0 ? System.nanoTime() : endNanos) - startNanos;
    }

    @Override
    public long bytesIn() {
        return bytesIn;
    }

    @Override
    public long bytesOut() {
        return bytesOut;
    }

    @Override
    public String traceId() {
        return traceId;
    }

    @Override
    public ProxyFailure failure() {
        return failure;
    }

    @Override
    public int grpcStatus() {
        return grpcStatus;
    }

    @Override
    public String toString() {
        return request.method() + " " + originalTarget + (route == null ? "" : " (route '" + routeId() + "')");
    }
}
