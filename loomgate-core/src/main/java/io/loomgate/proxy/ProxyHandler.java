package io.loomgate.proxy;

import io.loomgate.filter.FilterChains;
import io.loomgate.filter.FilterExchange;
import io.loomgate.http.Headers;
import io.loomgate.http.Method;
import io.loomgate.http.RequestHead;
import io.loomgate.http.ResponseHead;
import io.loomgate.http1.BodyFraming;
import io.loomgate.http1.BodyInputStream;
import io.loomgate.proxy.FailureClassifier.Stage;
import io.loomgate.proxy.ProxyFailure.Kind;
import io.loomgate.resilience.FallbackForward;
import io.loomgate.route.Route;
import io.loomgate.server.ExchangeHandler;
import io.loomgate.server.ServerExchange;
import io.loomgate.upstream.Upstream;
import io.loomgate.upstream.UpstreamMember;
import java.io.IOException;
import java.util.ArrayList;
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
    /**
     * How long a retryable exchange waits for the first byte of a body the origin announced but has not started
     * sending (see {@link UpstreamAttempt#awaitBodyStart}). Origins send a small body with its head or right after
     * it; a stream that starts later passes after this wait, its head delayed by it.
     */
    static final int BODY_START_GRACE_MILLIS = 100;

    private final ProxySettings settings;
    private final ExchangeListener listener;
    private final ForwardedHeaders forwarded;
    /** The one place the runtime routing table lives; {@link #swapRoutes} replaces it whole. */
    private volatile BoundRoutes routes;

    public ProxyHandler(BoundRoutes routes, ProxySettings settings, ExchangeListener listener) {
        this.routes = routes;
        this.settings = settings;
        this.listener = listener;
        this.forwarded = new ForwardedHeaders(settings.trustedProxies());
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
        Exchange x = new Exchange(downstream, System.nanoTime());
        listener.exchangeStart(x);
        ProxyFailure failure = null;
        try {
            proxy(x);
        } catch (IOException e) { // upstream failures are classified where they happen; what is left is the client
            failure = classify(x, e, Stage.CLIENT_WRITE);
        } catch (RuntimeException e) { // a filter's bug or a broken invariant: answered, not hidden
            failure = new ProxyFailure(Kind.INTERNAL, "internal error: " + e, e);
        }
        end(x, failure);
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
            runFilters(x);
            if (x.localReply != null) {
                sendLocalReply(x);
            } else if (x.response.status() == 101) {
                tunnel(x);
            } else {
                relayResponse(x);
            }
        } finally {
            admission.leave();
            if (x.attempt != null) {
                x.attempt.close(); // discards the connection unless the response ended cleanly
            }
        }
    }

    // ---- phases before the upstream ----

    /** Requests the gateway answers itself without a route: {@code OPTIONS *}; CONNECT and the like are refused. */
    private boolean answeredLocally(Exchange x) throws IOException {
        RequestHead r = x.request;
        if (r.target().equals("*") && r.method().equals(Method.OPTIONS)) {
            ResponseHead head = ResponseHead.of(200);
            head.headers().add("Allow", "GET, HEAD, POST, PUT, DELETE, OPTIONS, PATCH, TRACE");
            LocalReplies.send(x.downstream, head, new byte[0]);
            x.status = 200;
            return true; // reported by end(), like every exchange
        }
        if (r.method().equals(Method.CONNECT)) {
            throw new ProxyFailure(Kind.BAD_REQUEST, 405, "CONNECT is not supported by this gateway", null);
        }
        if (r.target().charAt(0) != '/') {
            throw new ProxyFailure(Kind.BAD_REQUEST, "request target must be origin-form", null);
        }
        if (DotSegments.present(r.path())) {
            throw new ProxyFailure(Kind.BAD_REQUEST, "path contains a dot-segment ('.' or '..'), which could "
                    + "reach a path no route allows", null);
        }
        return false;
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

    /** Hop-by-hop fields out, forwarding fields and trace context in; filters then see the request as sent. */
    private void prepareUpstreamRequest(Exchange x) {
        Headers h = x.request.headers();
        List<String> upgrades = h.hasToken("Connection", "upgrade") ? Upgrades.allowed(h, x.route.route())
                : List.of();
        HopByHop.strip(h);
        h.remove("Expect"); // the gateway answers 100-continue itself when it starts reading the body
        if (!upgrades.isEmpty()) {
            x.upgradeRequested = true;
            x.upgrades = upgrades;
            h.set("Upgrade", String.join(", ", upgrades));
            h.set("Connection", "Upgrade");
        }
        forwarded.apply(h, x.downstream.remoteAddress(), x.downstream.localAddress(), h.first("Host"),
                x.downstream.tls());
        x.traceId = TraceContext.propagate(h);
    }

    /** requestFilters → forward → responseFilters; a breaker's fallback runs its route's chain instead, once. */
    private void runFilters(Exchange x) throws IOException {
        try {
            FilterChains.run(x.route.route().filters(), x, this::forward);
        } catch (FallbackForward fallback) {
            BoundRoute from = x.route;
            x.request = x.request.withPath(fallback.path());
            BoundRoutes.Match m = routes.match(x.request, x.client);
            if (m == null || m.route() == from) {
                throw new ProxyFailure(Kind.OVERLOADED, "route '" + from.route().id() + "' is open and its fallback "
                        + fallback.path() + (m == null ? " matches no route" : " leads back to it"), null);
            }
            x.matchedRoute = from; // listeners keep seeing the route the client matched
            x.route = m.route();
            x.variables = m.variables();
            try {
                FilterChains.run(x.route.route().filters(), x, this::forward);
            } catch (FallbackForward again) {
                throw new ProxyFailure(Kind.OVERLOADED, "route '" + from.route().id() + "' is open and so is its "
                        + "fallback route '" + x.route.route().id() + "'", null);
            }
        }
    }

    // ---- the chain's last link: attempts until one gets a response head worth relaying ----

    private void forward(FilterExchange fx) throws IOException {
        Exchange x = (Exchange) fx;
        Retries retries = Retries.start(x, x.route.retry(), listener);
        Upstream upstream = x.route.upstream();
        long hash = RequestKey.hash(upstream.balancing().hashKey(), x.request, x.clientAddress());
        List<UpstreamMember> tried = new ArrayList<>(2);
        for (int n = 0; ; n++) {
            UpstreamMember member = upstream.select(hash, tried);
            try {
                tryUpstream(x, member, n, retries);
            } catch (ProxyFailure f) {
                UpstreamAttempt failed = x.attempt;
                failed.close();
                upstream.recordOutcome(member, !Retries.countsAgainstEndpoint(f));
                if (!retries.mayRetry(x, f, failed.facts())) {
                    throw f;
                }
                tried.add(member);
                continue;
            }
            int status = x.response.status();
            upstream.recordOutcome(member, status < 502 || status > 504);
            if (!retries.mayRetryStatus(x, status, x.attempt.facts())) {
                return;
            }
            x.attempt.close(); // the answer is not relayed: the connection goes with it
            x.response = null;
            tried.add(member);
        }
    }

    /** One attempt: connect → sendHead → relayBody → readHead, to the member the balancer chose. */
    private void tryUpstream(Exchange x, UpstreamMember member, int number, Retries retries) throws ProxyFailure {
        Route route = x.route.route();
        UpstreamAttempt attempt = new UpstreamAttempt(member, number);
        x.attempt = attempt;
        try {
            attempt.connect(retries.tryDeadline(route.timeout()));
        } catch (IOException e) {
            throw classify(x, e, Stage.CONNECT);
        }
        listener.upstreamAcquired(x, attempt.reused());
        try {
            attempt.sendHead(x.request, x.downstream.requestFraming(), route.preserveHost());
            relayRequestBody(x, attempt, retries.body(number));
            ResponseHead head = attempt.readHead(retries.tryTimeout(route.timeout()), x.upgradeRequested,
                    interim -> relayInterim(x, interim));
            if (head.status() == 101) {
                Upgrades.checkSwitch(head, x.upgrades);
            }
            BodyFraming framing = attempt.responseFraming(x.request.method(), head);
            if (head.status() != 101 && retries.mayTryAgain(x)) {
                // An origin killed between its head and its body would otherwise cost the client a 502 that a
                // retry avoids: nothing of this response has reached the client yet.
                attempt.awaitBodyStart(framing, BODY_START_GRACE_MILLIS);
            }
            x.response = head;
            x.upstreamNanos = System.nanoTime() - attempt.sentNanos();
            x.upstreamFraming = framing;
        } catch (IOException e) {
            throw classify(x, e, Stage.FORWARD);
        }
        listener.responseHeadReceived(x);
    }

    /**
     * Streams the client's body to the origin. An origin may answer before it has read the body (413, 401; RFC 9112
     * §9.5): when its answer starts arriving mid-upload, or the upload fails because it closed, the upload stops and
     * the answer is read and relayed (as HAProxy does), with the client's connection closed after it, since the rest
     * of its body is never read. A write failure with no answer behind it stays a failure.
     */
    private void relayRequestBody(Exchange x, UpstreamAttempt attempt, BodyInputStream body) throws IOException {
        try {
            x.bytesIn = attempt.relayBody(body, x.downstream.requestFraming(), x.route.route().timeout(),
                    interim -> relayInterim(x, interim));
            if (!attempt.answeredEarly()) {
                return;
            }
        } catch (BodyRelay.WriteFailed e) {
            if (!attempt.hasResponseBytes()) { // the origin closed with nothing to say: a failure, as before
                throw e;
            }
        }
        log.debug("{}: origin answered before the whole request body was sent; upload stopped", x);
        x.requestBodyCut = true;
        x.downstream.closeAfterResponse();
    }

    private static void relayInterim(Exchange x, ResponseHead interim) throws IOException {
        ResponseHeadRewriter.interim(interim);
        x.downstream.sendInterim(interim);
    }

    // ---- phases after the upstream answered ----

    private void relayResponse(Exchange x) throws IOException {
        ResponseHeadRewriter.ForClient answer = ResponseHeadRewriter.forClient(x.response, x.upstreamFraming);
        BodyInputStream body = x.attempt.openBody(x.upstreamFraming, settings.limits(), settings.bodyReadTimeout());
        x.status = x.response.status();
        ServerExchange.ResponseBody out;
        try {
            out = x.downstream.sendHead(x.response, answer.framing());
        } catch (IOException e) {
            throw classify(x, e, Stage.CLIENT_WRITE);
        }
        long length = x.upstreamFraming instanceof BodyFraming.Fixed f ? f.length() : -1;
        try {
            x.bytesOut = BodyRelay.copy(body, out, length);
            if (x.attempt.uploadUnfinished()) {
                // An HTTP/2 origin answered in full before taking the whole request body: the rest of it is never
                // read, so the client's connection cannot carry another request (the upload is cancelled).
                x.requestBodyCut = true;
                x.downstream.closeAfterResponse();
            }
            out.finish(body.trailers());
        } catch (IOException e) {
            throw classify(x, e, Stage.RESPONSE_BODY);
        }
        x.attempt.finish(body.isComplete() && answer.originKeepsAlive() && !x.requestBodyCut);
        x.bytesIn = Math.max(x.bytesIn, x.attempt.uploaded()); // an HTTP/2 upload of unknown length, now joined
    }

    private void sendLocalReply(Exchange x) throws IOException {
        x.status = x.localReply.status();
        LocalReplies.send(x.downstream, x.localReply, x.localReplyBody);
    }

    /** After a 101: both connections become one byte pipe until either side closes; then the attempt discards. */
    private void tunnel(Exchange x) throws IOException {
        ResponseHeadRewriter.forTunnel(x.response);
        x.status = 101;
        ServerExchange.Tunnel client = x.downstream.upgrade(x.response);
        UpgradeTunnel.run(x, client, x.attempt.connection(), settings.bodyReadTimeout());
    }

    // ---- the end ----

    private static ProxyFailure classify(Exchange x, IOException e, Stage stage) {
        return FailureClassifier.classify(e, stage, x.attempt == null ? null : x.attempt.endpoint(),
                x.routeId(), x.route == null ? null : x.route.route().timeout());
    }

    /** The one place an exchange's end is reported: exchangeEnd, or exchangeFailed and the failure answered. */
    private void end(Exchange x, ProxyFailure failure) throws IOException {
        x.endNanos = System.nanoTime();
        if (failure == null) {
            listener.exchangeEnd(x);
            return;
        }
        x.failure = failure;
        failure.logOnce(log, x);
        if (failure.source() == ProxyFailure.Source.UPSTREAM && x.downstream.isResponseStarted()
                && x.downstream.retractResponse()) {
            log.debug("{}: no byte of the response had reached the client: answered {} instead", x, failure.status());
        }
        if (!x.downstream.isResponseStarted()) {
            x.status = failure.status();
        }
        listener.exchangeFailed(x);
        LocalReplies.answer(x.downstream, failure);
    }
}
