package io.loomgate.proxy;

import io.loomgate.filter.FilterChains;
import io.loomgate.grpc.GrpcStatus;
import io.loomgate.http.Headers;
import io.loomgate.http.Method;
import io.loomgate.http.ResponseHead;
import io.loomgate.http.Status;
import io.loomgate.http1.BodyFraming;
import io.loomgate.http1.BodyInputStream;
import io.loomgate.proxy.FailureClassifier.Stage;
import io.loomgate.proxy.ProxyFailure.Kind;
import io.loomgate.resilience.CircuitBreakerPolicy;
import io.loomgate.route.Route;
import io.loomgate.server.ExchangeHandler;
import io.loomgate.server.ServerExchange;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The gateway: one call per request, on the request's own thread, running the phases of package-info's chart in
 * order. Each phase is a short method; the upstream side of each try is an {@link UpstreamAttempt}; every
 * {@link IOException} becomes a {@link ProxyFailure} in {@link FailureClassifier}; the end of every exchange, success
 * or failure, is reported in one place, {@link #end}.
 */
public final class ProxyHandler implements ExchangeHandler {
    private static final Logger log = LoggerFactory.getLogger(ProxyHandler.class);

    static {
        FailurePathClasses.initialise(); // before any exchange is compiled: see there
        // LogContext's initialiser installs the MDC adapter (reflection into SLF4J's MDC, tens of ms on a loaded
        // core). Left to the first exchanges, every one of a burst of first connections but one waits for it, pinned
        // to its carrier: a class's initialisation still pins a virtual thread on JDK 25 (a 68 ms pin in
        // ContainerImageIT's burst of 200 connections). Here it is done on the thread that makes the proxy.
        LogContext.initialise();
    }

    /**
     * How long the end of a response waits for the request body's relay beside it (full duplex) to end by itself: an
     * origin that answered as it read ends its answer right after the body's end reached it.
     */
    static final java.time.Duration UPLOAD_END_GRACE = java.time.Duration.ofSeconds(1);

    private final ProxySettings settings;
    private final ExchangeListener listener;
    /** The listener when it decides whether a new trace is sampled, else null (TraceContext.start). */
    private final ExchangeListener sampler;
    private final ForwardedHeaders forwarded;
    private final UpstreamForwarder forwarder;
    /** The one place the runtime routing table lives; {@link #swapRoutes} replaces it whole. */
    private volatile BoundRoutes routes;

    public ProxyHandler(BoundRoutes routes, ProxySettings settings, ExchangeListener listener) {
        this.routes = routes;
        this.settings = settings;
        this.listener = listener;
        this.sampler = listener.decidesSampling() ? listener : null;
        this.forwarded = new ForwardedHeaders(settings.trustedProxies(), settings.stripRequestHeaders());
        this.forwarder = new UpstreamForwarder(listener);
    }

    /**
     * The swap point of a live reload: requests that match from now on use {@code next}; requests in flight finish
     * on the route (upstream, admission) they matched.
     */
    public void swapRoutes(BoundRoutes next) {
        this.routes = next;
    }

    /** The table requests match against now. */
    public BoundRoutes routes() {
        return routes;
    }

    @Override
    public void handle(ServerExchange downstream) throws IOException {
        try {
            exchange(downstream);
        } finally {
            // An HTTP/1.1 connection's thread goes on to its next request, whose lines are not this one's. An HTTP/2
            // stream's thread ends here.
            LogContext.leave(downstream.threadEndsWithExchange());
        }
    }

    private void exchange(ServerExchange downstream) throws IOException {
        Exchange x = new Exchange(downstream, System.nanoTime());
        downstream.onClientCancel(x); // the exchange is its own ClientCancel: no object made per exchange
        listener.exchangeStart(x);
        ProxyFailure failure = null;
        try {
            proxy(x);
        } catch (IOException e) { // upstream failures are classified where they happen; what is left is the client
            failure = FailureClassifier.of(x, e, Stage.CLIENT_WRITE);
        } catch (RuntimeException e) { // a filter's bug or a broken invariant: answered, not hidden
            failure = new ProxyFailure(Kind.INTERNAL, "internal error: " + e, e);
        }
        if (failure != null && failure.source() == ProxyFailure.Source.UPSTREAM && cancelledByClient(x)) {
            failure = new ProxyFailure(Kind.CLIENT_ABORTED, "client cancelled the request (stream reset, or its "
                    + "connection closed) while it was being proxied: " + failure.getMessage(), failure);
        }
        if (failure != null && failure.kind() == Kind.CLIENT_ABORTED && x.downstream.cutByDrain()) {
            failure = new ProxyFailure(Kind.DRAIN_CUT, "cut at the drain's deadline (shutting down): "
                    + failure.getMessage(), failure);
        }
        if (x.grpc.watch != null) {
            failure = GrpcCalls.endDeadline(x, failure);
        }
        end(x, failure);
    }

    /**
     * Whether an HTTP/2 client reset the stream ({@link Exchange#clientCancelled()} aborted the attempt), or, for a
     * handler path that registered no cancel, interrupted the thread. The upstream failure that follows is the
     * client's doing, not the origin's (gRPC clients reset the stream whenever their deadline passes).
     */
    static boolean cancelledByClient(Exchange x) {
        return x.clientCancelled || Thread.currentThread().isInterrupted();
    }

    /** The phase chart: see package-info. */
    private void proxy(Exchange x) throws IOException {
        GrpcCalls.recognise(x);
        if (RequestScreen.answeredLocally(x)) {
            return;
        }
        int ownHops = cleanForwardingFields(x);
        x.trace = TraceContext.start(x.request.headers(), sampler); // after the cleaning: strip-request-headers holds
        LogContext.enter(x.trace);
        matchRoute(x);
        RequestScreen.refuseLoop(ownHops);
        RouteAdmission admission = admit(x);
        try {
            prepareUpstreamRequest(x);
            runFilters(x);
            if (x.localReply != null) {
                sendLocalReply(x);
            } else if (x.upstream.head.status() == 101) {
                tunnel(x);
            } else {
                relayResponse(x);
            }
        } finally {
            admission.leave();
            endUpstream(x);
        }
    }

    /**
     * The exchange's upstream side ends, before its answer or failure is reported: the last attempt closed, and a
     * request body a refused stream handed to a retry that never took it up (its dial refused, a breaker open) has
     * the refused upload's pending read of the client cut (session 59). Out of {@link #proxy}: its finally block is
     * compiled twice, and proxy stays within C2's inline size (OriginWaitPathInlineSizeTest).
     */
    private static void endUpstream(Exchange x) {
        UpstreamAttempt attempt = x.upstream.attempt;
        if (attempt != null) {
            attempt.close(); // discards the connection unless the response ended cleanly
            // a body relayed beside this thread, ended
            x.outcome.bytesIn = Math.max(x.outcome.bytesIn, attempt.uploaded());
        }
        RefusedStreamCopy handedOver = x.refusedStreamCopy;
        if (handedOver != null) {
            handedOver.abandon();
        }
    }

    // ---- phases before the upstream ----

    /**
     * The fields the gateway owns (X-Forwarded-*, Forwarded, Via, X-Forwarded-Client-Cert and
     * {@code server.strip-request-headers}) made what the origin will get, before any route looks at them: a predicate
     * on one of them sees the gateway's word, never the client's (issue 35; Envoy sanitises before routing too).
     * Returns what {@link RequestScreen#refuseLoop} needs: whether the request came back to this instance (its own
     * CDN-Loop id), else the passes through a Loomgate it made before this one ({@link ForwardedHeaders#apply}).
     */
    private int cleanForwardingFields(Exchange x) {
        Headers h = x.request.headers();
        return forwarded.apply(h, x.downstream.remoteAddress(), x.downstream.remoteIp(), x.downstream.localAddress(),
                h.first("Host"), x.downstream.tls(), x.request.version());
    }

    private void matchRoute(Exchange x) throws ProxyFailure {
        x.client = forwarded.clientIp(x.downstream.remoteAddress().getAddress(), x.request.headers());
        BoundRoutes.Match m = routes.match(x.request, x.client);
        if (m == null) {
            throw new ProxyFailure(Kind.NO_ROUTE, "no route for " + x.request.method() + " " + x.request.path(), null);
        }
        x.route = m.route();
        x.variables = m.variables();
        listener.routeMatched(x);
    }

    private RouteAdmission admit(Exchange x) throws ProxyFailure {
        RouteAdmission admission = x.route.admission();
        if (!admission.tryEnter()) {
            Route r = x.route.route();
            throw new ProxyFailure(Kind.OVERLOADED, "route '" + r.id() + "' is at max-in-flight " + r.maxInFlight(),
                    null);
        }
        return admission;
    }

    /**
     * Hop-by-hop fields out (the forwarding fields went in before routing); filters then see the request as sent,
     * but for traceparent, which each attempt writes ({@link TraceContext#sendUpstream}).
     */
    private void prepareUpstreamRequest(Exchange x) {
        Headers h = x.request.headers();
        List<String> upgrades = h.hasToken("Connection", "upgrade") ? Upgrades.allowed(h, x.route.route())
                : List.of();
        HopByHop.strip(h);
        h.remove("Expect"); // the gateway answers 100-continue itself when it starts reading the body
        if (!upgrades.isEmpty()) {
            x.upgrades = upgrades;
            h.set("Upgrade", String.join(", ", upgrades));
            h.set("Connection", "Upgrade");
        }
    }

    /**
     * requestFilters → forward → responseFilters, inside the route's circuit breaker when it has one; a breaker's
     * fallback runs the fallback route's instead, once.
     */
    private void runFilters(Exchange x) throws IOException {
        if (!(guarded(x) instanceof CircuitBreakerPolicy.Fallback fallback)) {
            return;
        }
        BoundRoute from = x.route;
        if (x.upstream.attempt != null) { // a listed status's answer, not relayed: its connection goes with it
            x.upstream.attempt.close();
        }
        x.upstream.head = null;
        x.responseTap = null; // it saw the answer the fallback replaces
        String path = BreakerCall.expand(fallback.path(), x.variables);
        x.request = x.request.withPath(path);
        BoundRoutes.Match m = from.table().match(x.request, x.client); // the exchange's table, not a newer one
        if (m == null || m.route() == from) {
            throw new ProxyFailure(Kind.OVERLOADED, "route '" + from.route().id() + "' failed and its fallback "
                    + path + (m == null ? " matches no route" : " leads back to it"), null);
        }
        x.matchedRoute = from; // listeners keep seeing the route the client matched
        x.route = m.route();
        x.variables = m.variables();
        x.attributes().put(CircuitBreakerPolicy.EXECUTION_EXCEPTION, fallback.cause());
        if (guarded(x) instanceof CircuitBreakerPolicy.Fallback) {
            throw new ProxyFailure(Kind.OVERLOADED, "route '" + from.route().id() + "' failed and so did its "
                    + "fallback route '" + x.route.route().id() + "'", null);
        }
    }

    /** The route's filters and attempts, inside its breaker if it has one; the breaker's own answer becomes the reply. */
    private CircuitBreakerPolicy.Outcome guarded(Exchange x) throws IOException {
        CircuitBreakerPolicy breaker = x.route.route().policies().breaker();
        if (breaker == null) {
            FilterChains.run(x.route.route().filters(), x, forwarder);
            return null;
        }
        CircuitBreakerPolicy.Outcome outcome = breaker.guard(new BreakerCall(x, forwarder));
        if (outcome instanceof CircuitBreakerPolicy.Reply reply) {
            x.replyLocally(reply.head(), reply.body());
        } else if (outcome instanceof CircuitBreakerPolicy.Refused refused) {
            throw BreakerCall.refusal(x, refused, "");
        }
        return outcome;
    }

    // ---- phases after the upstream answered ----

    private void relayResponse(Exchange x) throws IOException {
        UpstreamAttempt attempt = x.upstream.attempt;
        ResponseHeadRewriter.ForClient answer = ResponseHeadRewriter.forClient(x.upstream.head, x.upstream.framing,
                attempt.overHttp2());
        BodyInputStream body = attempt.openBody(x.upstream.framing, settings.limits(), settings.bodyReadTimeout());
        x.outcome.status = x.upstream.head.status();
        ServerExchange.ResponseBody out;
        try {
            out = x.downstream.sendHead(x.upstream.head, answer.framing());
        } catch (IOException e) {
            throw FailureClassifier.of(x, e, Stage.CLIENT_WRITE);
        }
        x.responseOut = out;
        boolean dropped = bodyDropped(x);
        long length = x.upstream.framing instanceof BodyFraming.Fixed f ? f.length() : -1;
        Headers trailers = null;
        try {
            if (dropped) {
                out.finish(null); // the client's answer is its head alone; the origin's body is dropped below
            } else {
                // A tapped body goes through the tap's stream, so never the direct path: only routes that tap pay.
                x.outcome.bytesOut = BodyRelay.copy(body, x.responseTap == null ? out
                        : new TappedResponseBody(out, x.responseTap), length);
                trailers = body.trailers();
                out.finish(trailers);
            }
        } catch (IOException e) {
            x.outcome.bytesOut = BodyRelay.copiedBefore(e); // the client has what was relayed before the failure
            // A client that failed while its body was relayed beside this thread (full duplex) made the origin stop,
            // which is what failed the response: the client's failure is the one reported.
            IOException client = attempt.clientBodyFailure();
            throw client != null ? FailureClassifier.of(x, client, Stage.FORWARD)
                    : FailureClassifier.of(x, e, Stage.RESPONSE_BODY);
        }
        if (!attempt.endUpload(UPLOAD_END_GRACE)) {
            // The origin answered in full before taking the whole request body: the rest of it is never read, so
            // the client's connection cannot carry another request, nor the origin's.
            x.upstream.requestBodyCut = true;
            x.downstream.closeAfterResponse();
        }
        if (x.grpc.active) {
            x.grpc.status = GrpcCalls.statusSent(x.upstream.head, trailers);
        }
        // A gRPC deadline that expired meanwhile may have cancelled the attempt: disarmed first, it cannot cancel it
        // once its connection is back in the pool.
        boolean expired = x.grpc.watch != null && x.grpc.watch.disarm();
        // A dropped body is read here, after the client has its answer, within bounds: the connection (an HTTP/1.1
        // one) is pooled only when the body ended within them, else closed; an HTTP/2 stream is reset.
        boolean complete = dropped ? attempt.dropBody(body, x.upstream.framing, answer.originKeepsAlive())
                : body.isComplete();
        if (!dropped && x.responseTap != null && complete && (trailers == null || trailers.isEmpty())) {
            // the whole body came and the client took it: no earlier, no otherwise; trailers a tap cannot replay
            x.responseTap.completed();
        }
        attempt.finish(!expired && complete && answer.originKeepsAlive() && !x.upstream.requestBodyCut);
    }

    /**
     * Whether the origin framed a body the client never gets: a filter made the status one without a body (a
     * plugin's {@code setResponse} to 204 or 304), or the client asked HEAD while a filter sent the origin another
     * method. The server would discard such a body as it is written; it is dropped by the attempt instead, bounded,
     * so that an endless or huge one neither holds the exchange nor goes back to the pool half read.
     */
    private static boolean bodyDropped(Exchange x) {
        return !(x.upstream.framing instanceof BodyFraming.None) && (Status.forbidsBody(x.upstream.head.status())
                || Method.HEAD.equals(x.downstream.request().method()));
    }

    private void sendLocalReply(Exchange x) throws IOException {
        if (x.grpc.active) {
            GrpcStatus status = GrpcReplies.statusFor(x.localReply.head().status());
            x.outcome.status = 200;
            x.grpc.status = status.code();
            LocalReplies.sendGrpc(x.downstream, x.localReply.head(), status, GrpcCalls.replyText(x));
            return;
        }
        x.outcome.status = x.localReply.head().status();
        byte[] body = x.localReply.body();
        x.outcome.bytesOut = bodyBytesSent(x, x.outcome.status, body == null ? 0 : body.length);
        LocalReplies.send(x.downstream, x.localReply.head(), body);
    }

    /**
     * The body bytes a local answer of {@code length} puts on the wire: none for a HEAD or a status without a body,
     * whose body the server does not write.
     */
    private static long bodyBytesSent(Exchange x, int status, int length) {
        return Method.HEAD.equals(x.downstream.request().method()) || Status.forbidsBody(status) ? 0 : length;
    }

    /** After a 101: both connections become one byte pipe until either side closes; then the attempt discards. */
    private void tunnel(Exchange x) throws IOException {
        ResponseHeadRewriter.forTunnel(x.upstream.head);
        x.outcome.status = 101;
        ServerExchange.Tunnel client = x.downstream.upgrade(x.upstream.head);
        UpgradeTunnel.run(x, client, x.upstream.attempt.connection(), settings.bodyReadTimeout());
        if (x.downstream.cutByDrain()) {
            // A tunnel ends quietly whichever side closes it, so the drain's cut of the client connection under it
            // is reported here, as a relay's is: counted drain_cut, not a tunnel the client closed.
            throw new ProxyFailure(Kind.DRAIN_CUT, "tunnel cut at the drain's deadline (shutting down)", null);
        }
    }

    // ---- the end ----

    /** The one place an exchange's end is reported: exchangeEnd, or exchangeFailed and the failure answered. */
    private void end(Exchange x, ProxyFailure failure) throws IOException {
        x.outcome.endNanos = System.nanoTime();
        if (failure == null) {
            listener.exchangeEnd(x);
            return;
        }
        x.outcome.failure = failure;
        if (failure.source() == ProxyFailure.Source.UPSTREAM && x.downstream.isResponseStarted()
                && x.downstream.retractResponse()) {
            log.debug("{}: no byte of the response had reached the client: answered {} instead", x, failure.status());
        }
        failure.logOnce(log, x, x.downstream.isResponseStarted()
                ? x.outcome.status + " cut after " + x.outcome.bytesOut + " body bytes," : null);
        GrpcStatus grpc = x.grpc.active ? GrpcReplies.statusFor(failure) : null;
        boolean answered = !failure.clientGone();
        if (grpc != null && answered) {
            x.grpc.status = grpc.code();
        } else if (grpc != null && failure.kind() == Kind.CLIENT_ABORTED) {
            // Sent nothing, but the call still ended with a status, the one its client reports itself: counted and
            // logged too (before session 61 a gRPC call its client cancelled had none; a drain's cut still has none).
            x.grpc.status = GrpcCalls.reportedByClientThatLeft(x).code();
        }
        if (!x.downstream.isResponseStarted()) {
            // A client gone (it left, or the drain closed its connection) was sent nothing: 0, "no response", which
            // the metrics count as status class none and the access log writes as 499. Before session 60 it was the
            // kind's status (400, 503), an answer the client never got.
            x.outcome.status = !answered ? 0 : grpc != null ? 200 : failure.status();
            // the answer's body, counted now: the listeners are told before LocalReplies sends it (none for gRPC:
            // trailers only; none for a client that is gone); this also drops what a retracted response had counted
            x.outcome.bytesOut = grpc != null || !answered ? 0
                    : bodyBytesSent(x, failure.status(),
                            LocalReplies.failureText(failure).getBytes(StandardCharsets.UTF_8).length);
        }
        listener.exchangeFailed(x);
        if (failure.source() == ProxyFailure.Source.UPSTREAM && x.outcome.bytesIn > 0
                && !x.downstream.requestBody().isComplete()) {
            // The origin failed while the client's body was going to it (session 61): the rest is of no use, so
            // the client is not made to send it for a keep-alive (HTTP/1.1: Connection: close, as when the upload's
            // read of it was cut; HTTP/2 ends the stream as for any early answer).
            x.downstream.closeAfterResponse();
        }
        if (grpc != null) {
            LocalReplies.answerGrpc(x, failure, grpc);
        } else {
            LocalReplies.answer(x.downstream, failure);
        }
    }
}
