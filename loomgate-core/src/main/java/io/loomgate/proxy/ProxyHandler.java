package io.loomgate.proxy;

import io.loomgate.filter.FilterChains;
import io.loomgate.filter.FilterExchange;
import io.loomgate.http.Headers;
import io.loomgate.http.Method;
import io.loomgate.http.RequestHead;
import io.loomgate.http.ResponseHead;
import io.loomgate.http1.BodyFraming;
import io.loomgate.http1.BodyInputStream;
import io.loomgate.http1.ChunkedOutputStream;
import io.loomgate.http1.HttpOutput;
import io.loomgate.http1.HttpParseException;
import io.loomgate.proxy.ProxyFailure.Kind;
import io.loomgate.route.Route;
import io.loomgate.route.RouteMatch;
import io.loomgate.route.RouteTable;
import io.loomgate.server.ExchangeHandler;
import io.loomgate.server.ServerExchange;
import io.loomgate.upstream.PoolExhaustedException;
import io.loomgate.upstream.PooledConnection;
import io.loomgate.upstream.Upstream;
import io.loomgate.upstream.UpstreamPool;
import io.loomgate.upstream.Upstreams;
import java.io.EOFException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The gateway: one call per request, on the request's own thread, running the phases of package-info's chart in
 * order. Each phase is a short method; each failure is a {@link ProxyFailure} named after where it happened and
 * answered in one place, {@link #failToProxy}.
 */
public final class ProxyHandler implements ExchangeHandler {
    private static final Logger log = LoggerFactory.getLogger(ProxyHandler.class);

    private final RouteTable routes;
    private final Upstreams upstreams;
    private final ProxySettings settings;
    private final ExchangeListener listener;
    private final ForwardedHeaders forwarded;
    private final Map<String, RouteAdmission> admissions = new HashMap<>();

    public ProxyHandler(RouteTable routes, Upstreams upstreams, ProxySettings settings, ExchangeListener listener) {
        this.routes = routes;
        this.upstreams = upstreams;
        this.settings = settings;
        this.listener = listener;
        this.forwarded = new ForwardedHeaders(settings.trustedProxies());
        for (Route r : routes.routes()) {
            if (upstreams.get(r.upstreamId()) == null) {
                throw new IllegalArgumentException("route '" + r.id() + "' names unknown upstream '" + r.upstreamId() + "'");
            }
            admissions.put(r.id(), new RouteAdmission(r.maxInFlight(), r.queueTimeout()));
        }
    }

    @Override
    public void handle(ServerExchange downstream) throws IOException {
        Exchange x = new Exchange(downstream, System.nanoTime());
        listener.exchangeStart(x);
        try {
            proxy(x);
            x.endNanos = System.nanoTime();
            listener.exchangeEnd(x);
        } catch (ProxyFailure f) {
            failToProxy(x, f);
        } catch (RuntimeException e) { // a filter's bug or a broken invariant: answered, not hidden
            failToProxy(x, new ProxyFailure(Kind.INTERNAL, "internal error: " + e, e));
        }
    }

    /** The phase chart: see package-info. */
    private void proxy(Exchange x) throws IOException {
        if (answeredLocally(x)) {
            return;
        }
        matchRoute(x);
        RouteAdmission admission = admit(x);
        try {
            prepareUpstreamRequest(x);
            FilterChains.run(x.route.filters(), x, this::forward); // requestFilters → forward → responseFilters
            if (x.localReply != null) {
                sendLocalReply(x);
            } else if (x.response.status() == 101) {
                tunnel(x);
            } else {
                relayResponse(x);
            }
        } finally {
            admission.leave();
            if (x.connection != null) { // a failure left a connection checked out: it cannot be trusted
                x.pool.discard(x.connection);
                x.connection = null;
            }
        }
    }

    // ---- phases before the upstream ----

    /** Requests the gateway answers itself without a route: {@code OPTIONS *} and CONNECT. */
    private boolean answeredLocally(Exchange x) throws IOException {
        RequestHead r = x.request;
        if (r.target().equals("*") && r.method().equals(Method.OPTIONS)) {
            ResponseHead head = ResponseHead.of(200);
            head.headers().add("Allow", "GET, HEAD, POST, PUT, DELETE, OPTIONS, PATCH, TRACE");
            LocalReplies.send(x.downstream, head, new byte[0]);
            x.status = 200;
            return true; // handle reports the end, as for every exchange
        }
        if (r.method().equals(Method.CONNECT) || r.target().charAt(0) != '/') {
            throw new ProxyFailure(Kind.BAD_REQUEST, r.method().equals(Method.CONNECT) ? 405 : 400,
                    r.method().equals(Method.CONNECT) ? "CONNECT is not supported by this gateway"
                            : "request target must be origin-form", null);
        }
        if (DotSegments.present(r.path())) {
            throw new ProxyFailure(Kind.BAD_REQUEST, "path contains a dot-segment ('.' or '..'), which could "
                    + "reach a path no route allows", null);
        }
        return false;
    }

    private void matchRoute(Exchange x) throws ProxyFailure {
        RouteMatch m = routes.match(x.request);
        if (m == null) {
            throw new ProxyFailure(Kind.NO_ROUTE, "no route for " + x.request.method() + " " + x.request.path(), null);
        }
        x.route = m.route();
        x.variables = m.variables();
        listener.routeMatched(x);
    }

    private RouteAdmission admit(Exchange x) throws ProxyFailure {
        RouteAdmission admission = admissions.get(x.route.id());
        boolean admitted;
        try {
            admitted = admission.enter();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            admitted = false;
        }
        if (!admitted) {
            throw new ProxyFailure(Kind.OVERLOADED, "route '" + x.route.id() + "' is at max-in-flight "
                    + x.route.maxInFlight(), null);
        }
        return admission;
    }

    /** Hop-by-hop fields out, forwarding fields and trace context in; filters then see the request as sent. */
    private void prepareUpstreamRequest(Exchange x) {
        Headers h = x.request.headers();
        String upgrade = h.hasToken("Connection", "upgrade") ? h.first("Upgrade") : null;
        HopByHop.strip(h);
        h.remove("Expect"); // the gateway answers 100-continue itself when it starts reading the body
        if (upgrade != null) {
            x.upgradeRequested = true;
            h.set("Upgrade", upgrade);
            h.set("Connection", "Upgrade");
        }
        forwarded.apply(h, x.downstream.remoteAddress(), x.downstream.localAddress(), h.first("Host"));
        x.traceId = TraceContext.propagate(h);
    }

    // ---- the chain's last link: selectEndpoint → acquireConnection → send → relay body → read head ----

    private void forward(FilterExchange fx) throws IOException {
        Exchange x = (Exchange) fx;
        Upstream upstream = upstreams.get(x.route.upstreamId());
        for (int attempt = 0; ; attempt++) {
            x.pool = upstream.select();
            PooledConnection conn = acquireConnection(x, attempt > 0);
            x.connection = conn;
            listener.upstreamAcquired(x, conn.reused());
            try {
                sendRequestHead(x, conn);
                relayRequestBody(x, conn);
                readResponseHead(x, conn);
                return;
            } catch (BodyRelay.ReadFailed e) {
                if (e.getCause() instanceof HttpParseException bad) {
                    // A malformed chunked body (RFC 9112 §7.1): the client gets the codec's status and the
                    // half-sent request dies with the discarded upstream connection, never completed there.
                    throw new ProxyFailure(Kind.BAD_REQUEST, bad.status(), "malformed request body: "
                            + bad.getMessage(), e);
                }
                throw new ProxyFailure(Kind.CLIENT_ABORTED, "client failed while sending the request body: "
                        + e.getMessage(), e);
            } catch (IOException e) {
                x.pool.discard(conn);
                x.connection = null;
                if (mayRetry(x, conn, attempt, e)) {
                    log.debug("{}: reused connection to {} failed ({}), retrying on a fresh one", x, x.endpoint(),
                            e.toString());
                    continue;
                }
                throw failWhileProxying(x, e);
            }
        }
    }

    private PooledConnection acquireConnection(Exchange x, boolean fresh) throws ProxyFailure {
        long deadline = System.nanoTime() + x.route.timeout().toNanos();
        try {
            return x.pool.acquire(deadline, fresh);
        } catch (IOException e) {
            throw failToConnect(x, e);
        }
    }

    private void sendRequestHead(Exchange x, PooledConnection conn) throws IOException {
        RequestHead r = x.request;
        Headers h = r.headers();
        if (!x.route.preserveHost() || !h.contains("Host")) {
            h.set("Host", conn.endpoint().port() == 80 ? conn.endpoint().host() : conn.endpoint().authority());
        }
        switch (x.downstream.requestFraming()) {
            case BodyFraming.Fixed f -> h.set("Content-Length", Long.toString(f.length()));
            case BodyFraming.Chunked c -> {
                h.remove("Content-Length");
                h.set("Transfer-Encoding", "chunked");
            }
            default -> h.remove("Content-Length");
        }
        HttpOutput out = conn.output();
        out.writeRequestHead(r.isHttp11() ? r : new RequestHead(r.method(), r.target(), "HTTP/1.1", h));
        x.upstreamStartNanos = System.nanoTime();
        if (x.downstream.requestFraming() instanceof BodyFraming.None) {
            out.flush();
        }
    }

    private void relayRequestBody(Exchange x, PooledConnection conn) throws IOException {
        BodyFraming framing = x.downstream.requestFraming();
        if (framing instanceof BodyFraming.None) {
            return;
        }
        BodyInputStream body = x.downstream.requestBody();
        HttpOutput out = conn.output();
        if (framing instanceof BodyFraming.Chunked) {
            ChunkedOutputStream chunks = new ChunkedOutputStream(out);
            x.bytesIn = BodyRelay.copy(body, chunks, BodyRelay.bufferFor(-1));
            chunks.finish(body.trailers());
        } else {
            x.bytesIn = BodyRelay.copy(body, out, BodyRelay.bufferFor(((BodyFraming.Fixed) framing).length()));
        }
        out.flush();
    }

    private void readResponseHead(Exchange x, PooledConnection conn) throws IOException {
        conn.setReadTimeout(x.route.timeout());
        while (true) {
            ResponseHead head = conn.input().readResponseHead();
            x.responseBytesReceived = true;
            if (head.status() == 101) {
                if (!x.upgradeRequested) {
                    throw new HttpParseException(502, "101 Switching Protocols to a request that asked no upgrade");
                }
                x.response = head;
                break;
            }
            if (head.isInformational()) {
                if (head.status() != 100) { // 100 belongs to the Expect we removed; 103 and others go through
                    HopByHop.strip(head.headers());
                    x.downstream.sendInterim(head);
                }
                continue;
            }
            x.response = head;
            break;
        }
        x.upstreamNanos = System.nanoTime() - x.upstreamStartNanos;
        x.upstreamFraming = BodyFraming.ofResponse(x.request.method(), x.response);
        conn.setReadTimeout(settings.bodyReadTimeout());
        listener.responseHeadReceived(x);
    }

    // ---- phases after the upstream answered ----

    private void relayResponse(Exchange x) throws IOException {
        ResponseHead head = x.response;
        Headers h = head.headers();
        boolean upstreamKeepAlive = keepsAlive(head);
        BodyFraming framing = downstreamFraming(x.upstreamFraming);
        HopByHop.strip(h);
        if (!(framing instanceof BodyFraming.None)) {
            h.remove("Content-Length"); // the server writes the framing it uses
        }
        addVia(h);
        PooledConnection conn = x.connection;
        BodyInputStream body = x.upstreamFraming.open(conn.input(), settings.limits());
        x.status = head.status();
        ServerExchange.ResponseBody out;
        try {
            out = x.downstream.sendHead(head, framing);
        } catch (IOException e) {
            throw new ProxyFailure(Kind.CLIENT_ABORTED, "client went away before the response head: " + e, e);
        }
        relayResponseBody(x, body, out);
        releaseConnection(x, body.isComplete() && upstreamKeepAlive);
    }

    private void relayResponseBody(Exchange x, BodyInputStream body, ServerExchange.ResponseBody out)
            throws ProxyFailure {
        long length = x.upstreamFraming instanceof BodyFraming.Fixed f ? f.length() : -1;
        try {
            x.bytesOut = BodyRelay.copy(body, out, BodyRelay.bufferFor(length));
            out.finish(body.trailers());
        } catch (BodyRelay.ReadFailed e) {
            throw new ProxyFailure(Kind.UPSTREAM_ABORTED, "upstream " + x.endpoint() + " failed mid-body: "
                    + e.getMessage(), e);
        } catch (IOException e) {
            throw new ProxyFailure(Kind.CLIENT_ABORTED, "client went away mid-body: " + e.getMessage(), e);
        }
    }

    private void releaseConnection(Exchange x, boolean reusable) {
        PooledConnection conn = x.connection;
        x.connection = null;
        if (reusable) {
            x.pool.release(conn);
        } else {
            x.pool.discard(conn);
        }
    }

    /** An origin's body of unknown length is re-chunked for the client, so the client's connection survives it. */
    private static BodyFraming downstreamFraming(BodyFraming upstream) {
        return upstream instanceof BodyFraming.UntilClose ? BodyFraming.CHUNKED : upstream;
    }

    /** Whether the origin lets its connection be reused after this response (RFC 9112 §9.3). */
    private static boolean keepsAlive(ResponseHead head) {
        Headers h = head.headers();
        if ("HTTP/1.1".equals(head.version())) {
            return !h.hasToken("Connection", "close");
        }
        return h.hasToken("Connection", "keep-alive");
    }

    private static void addVia(Headers h) {
        String via = h.first("Via");
        h.set("Via", via == null ? ForwardedHeaders.VIA : via + ", " + ForwardedHeaders.VIA);
    }

    private void sendLocalReply(Exchange x) throws IOException {
        x.status = x.localReply.status();
        LocalReplies.send(x.downstream, x.localReply, x.localReplyBody);
    }

    /** After a 101: both connections become one byte pipe until either side closes. */
    private void tunnel(Exchange x) throws IOException {
        ResponseHead head = x.response;
        String protocol = head.headers().first("Upgrade");
        HopByHop.strip(head.headers());
        if (protocol != null) {
            head.headers().set("Upgrade", protocol);
        }
        head.headers().set("Connection", "Upgrade");
        x.status = 101;
        PooledConnection conn = x.connection;
        x.connection = null;
        try {
            ServerExchange.Tunnel client = x.downstream.upgrade(head);
            UpgradeTunnel.run(x, client, conn, settings.bodyReadTimeout());
        } finally {
            x.pool.discard(conn);
        }
    }

    // ---- failures ----

    private boolean mayRetry(Exchange x, PooledConnection conn, int attempt, IOException e) {
        return attempt == 0 && conn.reused() && !x.responseBytesReceived
                && !(e instanceof SocketTimeoutException) && !(e instanceof HttpParseException)
                && Method.isIdempotent(x.request.method())
                && x.downstream.requestFraming() instanceof BodyFraming.None;
    }

    private ProxyFailure failToConnect(Exchange x, IOException e) {
        String where = "upstream " + x.pool.endpoint() + " (route '" + x.route.id() + "')";
        if (e instanceof PoolExhaustedException) {
            return new ProxyFailure(Kind.POOL_EXHAUSTED, e.getMessage() + " for " + where, e);
        }
        if (e instanceof SocketTimeoutException) {
            return new ProxyFailure(Kind.CONNECT_TIMEOUT, "connecting to " + where + " timed out", e);
        }
        if (e instanceof ConnectException || e instanceof NoRouteToHostException) {
            return new ProxyFailure(Kind.CONNECT_REFUSED, where + " refused the connection", e);
        }
        return new ProxyFailure(Kind.CONNECT_REFUSED, "cannot connect to " + where + ": " + e.getMessage(), e);
    }

    private ProxyFailure failWhileProxying(Exchange x, IOException e) {
        String where = "upstream " + x.endpoint() + " (route '" + x.route.id() + "')";
        if (e instanceof SocketTimeoutException) {
            return new ProxyFailure(Kind.UPSTREAM_TIMEOUT, where + " sent no response within "
                    + x.route.timeout().toMillis() + " ms", e);
        }
        if (e instanceof HttpParseException) {
            return new ProxyFailure(Kind.BAD_RESPONSE, where + " sent an invalid response: " + e.getMessage(), e);
        }
        if (e instanceof EOFException) {
            return new ProxyFailure(Kind.UPSTREAM_RESET, where + " closed the connection before responding", e);
        }
        return new ProxyFailure(Kind.UPSTREAM_RESET, where + " failed: " + e.getMessage(), e);
    }

    /** Answers a failure: a local reply if no response started, otherwise the client connection is aborted. */
    private void failToProxy(Exchange x, ProxyFailure f) throws IOException {
        x.failure = f;
        x.endNanos = System.nanoTime();
        logOnce(x, f);
        boolean started = x.downstream.isResponseStarted();
        if (!started) {
            x.status = f.status();
        }
        listener.exchangeFailed(x);
        if (started) {
            throw f; // the connection loop aborts the client connection: a cut body must not look complete
        }
        if (f.kind() == Kind.CLIENT_ABORTED) {
            x.downstream.closeAfterResponse();
            throw f;
        }
        LocalReplies.send(x.downstream, f);
    }

    private static void logOnce(Exchange x, ProxyFailure f) {
        if (f.isRoutine()) {
            log.debug("{}: {} {}", x, f.status(), f.getMessage());
        } else if (f.source() == ProxyFailure.Source.INTERNAL && f.kind() == Kind.INTERNAL) {
            log.error("{}: {}", x, f.getMessage(), f);
        } else {
            log.warn("{}: {} {}", x, f.status(), f.getMessage());
        }
    }
}
