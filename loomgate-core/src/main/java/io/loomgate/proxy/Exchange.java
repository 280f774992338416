package io.loomgate.proxy;

import io.loomgate.filter.FilterExchange;
import io.loomgate.filter.ResponseBodyTap;
import io.loomgate.http.ClientCancel;
import io.loomgate.http.ConnectionAttributes;
import io.loomgate.http.RequestHead;
import io.loomgate.http.ResponseHead;
import io.loomgate.http1.BodyFraming;
import io.loomgate.http1.BodyInputStream;
import io.loomgate.http1.HttpParseException;
import io.loomgate.proxy.ProxyFailure.Kind;
import io.loomgate.server.ServerExchange;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The state of one proxied request, passed explicitly through every phase (never kept in a ThreadLocal). Filters see
 * it as a {@link FilterExchange}, listeners as an {@link ExchangeView}. Owned by the request's thread.
 */
final class Exchange implements FilterExchange, ExchangeView, UpstreamAttempt.InterimSink, ClientCancel {
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
    /** What the upstream side produced: the attempt, the response head and framing (UpstreamForwarder's). */
    final UpstreamSide upstream = new UpstreamSide();
    /** A filter's answer instead of the upstream's; null for none. */
    LocalReply localReply;
    /** The protocols the request asked to switch to, as forwarded (those its route allows); empty for none. */
    List<String> upgrades = List.of();
    /** The trace ids (TraceContext, the one source of them); null until drawn, after the request screen. */
    TraceContext trace;
    /** How the exchange ended, for the listeners. */
    final Outcome outcome = new Outcome();
    /**
     * The gRPC call's state: {@link GrpcCall#NONE} (shared, inactive, never written) for every other exchange, its
     * own from {@link GrpcCalls#recognise} for a call. Set on the request's thread before the call's deadline is armed.
     */
    GrpcCall grpc = GrpcCall.NONE;
    /** A filter's cap on the request body; null for none (the usual case: nothing made per exchange for it). */
    private RequestBodyCap bodyCap;
    /** The body read whole by {@code CacheRequestBody}; null while it streams (every route without that filter). */
    private CachedRequestBody cachedBody;
    private Map<String, Object> attributes;
    private String clientIp;
    private String principal;
    InetAddress client; // resolved once, before routing (ForwardedHeaders.clientIp)
    /** The response body being relayed: a gRPC call that fails after its head still ends with trailers here. */
    ServerExchange.ResponseBody responseOut;
    /** What a filter asked to see of the response body (a response cache); null for none, the usual case. */
    ResponseBodyTap responseTap;
    /**
     * On a route without a {@code Retry} policy, the request body's copy for a stream the origin refused, made by the
     * first attempt when it is HTTP/2 ({@link Retries}); null for none, every exchange on HTTP/1.1 origins. Here
     * rather than in an object of its own per request with a body (session 57): this field fills the object's padding
     * (104 B with compact headers either way).
     */
    RefusedStreamCopy refusedStreamCopy;

    Exchange(ServerExchange downstream, long startNanos) {
        this.downstream = downstream;
        this.startNanos = startNanos;
        this.request = downstream.request();
        this.originalTarget = request.target();
    }

    /**
     * An informational head from the origin goes on to the client. The exchange is the attempt's sink itself rather
     * than a lambda capturing it: one object less per attempt, held while the attempt waits for its origin.
     */
    @Override
    public void accept(ResponseHead interim) throws IOException {
        UpstreamForwarder.relayInterim(this, interim);
    }

    /** Whether the request asked for an upgrade its route allows (then a 101 may answer it). */
    boolean upgradeRequested() {
        return !upgrades.isEmpty();
    }

    /**
     * The watchdog's action when the gRPC deadline passes (on the watchdog's thread, must not block): cancels the
     * upstream attempt in flight, which ends whatever the exchange's thread waits for upstream; that thread then
     * reports the failure as {@code DEADLINE_EXCEEDED}.
     */
    void deadlinePassed() {
        grpc.expired = true;
        upstream.abortAttempt();
    }

    /** Set when the client cancelled the request (HTTP/2 RST_STREAM): no attempt is started or retried after it. */
    volatile boolean clientCancelled;

    /**
     * The client cancelled the request (on its connection's reader thread, must not block): the attempt in flight is
     * aborted, which ends whatever the exchange's thread waits for upstream (or, waiting for an HTTP/1.1 origin's
     * answer, lets it come within bounds to keep the connection: {@link DrainAfterCancel}). Not an interrupt: the thread may be
     * blocked writing to an upstream HTTP/2 connection other exchanges share, whose socket an interrupt would close.
     * Written before the attempt is read, and {@link UpstreamForwarder} sets the attempt before it reads this, so a
     * new attempt is either aborted here or sees the flag.
     */
    @Override
    public void clientCancelled() {
        clientCancelled = true;
        if (downstream.closedAtDrainsDeadline()) {
            // The drain's deadline closed the client connection (session 59; its client may have left before, session
            // 60): the process is ending, its pools close next, so an origin's connection is not worth
            // DrainAfterCancel's wait; the exchange ends at once.
            upstream.abortAttempt();
        } else {
            upstream.clientCancelled();
        }
    }

    /** Whether the gRPC deadline (if any) has passed, as the watchdog saw it or the clock says. */
    boolean pastDeadline() {
        return grpc.pastDeadline();
    }

    // ---- FilterExchange ----

    @Override
    public int configGeneration() {
        BoundRoute reported = matchedRoute != null ? matchedRoute : route; // as routeId(): the route the client matched
        return reported == null ? 0 : reported.table().generation();
    }

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
        return upstream.head != null ? upstream.head : localReply == null ? null : localReply.head();
    }

    @Override
    public void setResponse(ResponseHead response) {
        if (upstream.head != null) {
            upstream.head = response;
        } else if (localReply != null) {
            localReply = new LocalReply(response, localReply.body());
        } else {
            throw new IllegalStateException("no response yet: setResponse is for after proceed returns");
        }
    }

    @Override
    public void replyLocally(ResponseHead head, byte[] body) {
        if (upstream.head != null) {
            throw new IllegalStateException("the upstream already answered; edit response() instead");
        }
        this.localReply = new LocalReply(head, body);
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
        if (cachedBody != null) {
            return cachedBody.stream();
        }
        RequestBodyCap cap = bodyCap;
        return cap == null ? downstream.requestBody() : cap.apply(downstream.requestBody());
    }

    /** How the request body goes upstream: the client's framing, or the cached body's length once it was read. */
    BodyFraming requestFraming() {
        return cachedBody != null ? cachedBody.framing() : downstream.requestFraming();
    }

    /** Whether the body was read whole, so any number of attempts can send it. */
    boolean bodyCached() {
        return cachedBody != null;
    }

    @Override
    public byte[] cacheRequestBody(long maxBytes) throws IOException {
        if (cachedBody == null) {
            try {
                cachedBody = CachedRequestBody.read(clientBody(), downstream.requestFraming(), maxBytes);
            } catch (HttpParseException e) { // over the bound, or a malformed chunked body: the codec's status
                throw e.status() == 413 ? new ProxyFailure(Kind.BODY_TOO_LARGE, 413, e.getMessage(), e)
                        : new ProxyFailure(Kind.BAD_REQUEST, e.status(), e.getMessage(), e);
            } catch (java.net.SocketTimeoutException e) {
                throw new ProxyFailure(Kind.CLIENT_TIMEOUT, "client stalled while sending the request body: "
                        + e.getMessage(), e);
            } catch (IOException e) {
                throw new ProxyFailure(Kind.CLIENT_ABORTED, "client failed while sending the request body: "
                        + e.getMessage(), e);
            }
            if (!(cachedBody.framing() instanceof BodyFraming.None)) {
                // filters after this one, and the access log, see the length the origin gets
                request.headers().remove("Transfer-Encoding");
                request.headers().set("Content-Length", Integer.toString(cachedBody.bytes().length));
            }
        }
        return cachedBody.bytes();
    }

    @Override
    public void tapResponseBody(ResponseBodyTap tap) {
        ResponseBodyTap before = responseTap;
        responseTap = before == null ? tap : new ResponseBodyTap() { // two caches on one route: each gets it all
            @Override
            public void bytes(byte[] b, int off, int len) {
                before.bytes(b, off, len);
                tap.bytes(b, off, len);
            }

            @Override
            public void completed() {
                before.completed();
                tap.completed();
            }
        };
    }

    @Override
    public void limitRequestBody(long maxBytes) {
        if (bodyCap == null) {
            bodyCap = new RequestBodyCap();
        }
        bodyCap.limit(maxBytes);
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
            clientIp = downstream.remoteIp();
        }
        return clientIp;
    }

    @Override
    public String upstreamId() {
        return route == null ? null : route.upstream().id();
    }

    @Override
    public String endpoint() {
        UpstreamAttempt a = upstream.attempt;
        return a == null ? null : a.endpoint().label();
    }

    @Override
    public int status() {
        return outcome.status;
    }

    @Override
    public long startNanos() {
        return startNanos;
    }

    @Override
    public long upstreamNanos() {
        return upstream.nanos;
    }

    @Override
    public long totalNanos() {
        return (outcome.endNanos == 0 ? System.nanoTime() : outcome.endNanos) - startNanos;
    }

    @Override
    public long bytesIn() {
        return outcome.bytesIn;
    }

    @Override
    public long bytesOut() {
        return outcome.bytesOut;
    }

    @Override
    public String traceId() {
        return trace == null ? null : trace.traceId();
    }

    @Override
    public String spanId() {
        return trace == null ? null : trace.spanId();
    }

    @Override
    public String parentSpanId() {
        return trace == null ? null : trace.parentSpanId();
    }

    @Override
    public boolean traceSampled() {
        return trace != null && trace.sampled();
    }

    @Override
    public String attemptSpanId() {
        return trace == null ? null : trace.attemptSpanId();
    }

    @Override
    public int attemptNumber() {
        UpstreamAttempt a = upstream.attempt;
        return a == null ? -1 : a.number();
    }

    @Override
    public int attemptStatus() {
        ResponseHead head = upstream.head;
        return head == null ? 0 : head.status();
    }

    @Override
    public Object attribute(String name) {
        return attributes == null ? null : attributes.get(name);
    }

    @Override
    public void setAttribute(String name, Object value) {
        if (value != null) {
            attributes().put(name, value);
        } else if (attributes != null) {
            attributes.remove(name);
        }
    }

    @Override
    public ConnectionAttributes connectionAttributes() {
        return downstream.connectionAttributes();
    }

    @Override
    public ConnectionAttributes upstreamConnectionAttributes() {
        UpstreamAttempt a = upstream.attempt;
        return a == null ? null : a.connectionAttributes();
    }

    @Override
    public ProxyFailure failure() {
        return outcome.failure;
    }

    @Override
    public int grpcStatus() {
        return grpc.status;
    }

    @Override
    public String toString() {
        return request.method() + " " + originalTarget + (route == null ? "" : " (route '" + routeId() + "')");
    }
}
