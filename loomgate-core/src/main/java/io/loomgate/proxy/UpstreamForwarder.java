package io.loomgate.proxy;

import io.loomgate.filter.FilterChain;
import io.loomgate.filter.FilterExchange;
import io.loomgate.http.ResponseHead;
import io.loomgate.http1.BodyFraming;
import io.loomgate.http1.BodyInputStream;
import io.loomgate.proxy.FailureClassifier.Stage;
import io.loomgate.route.Route;
import io.loomgate.upstream.Upstream;
import io.loomgate.upstream.UpstreamMember;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The filter chain's last link: upstream attempts, each an {@link UpstreamAttempt} to the member the balancer chose,
 * until one gets a response head worth relaying or the route's {@code Retry} policy says stop. Every attempt's
 * outcome is reported to the upstream (outlier detection, the balancer's in-flight counts); a failed or retried
 * attempt is closed here, the one whose head is relayed is left on the exchange for {@link ProxyHandler} to finish.
 */
final class UpstreamForwarder implements FilterChain {
    private static final Logger log = LoggerFactory.getLogger(UpstreamForwarder.class);
    /**
     * How long a retryable exchange waits for the first byte of a body the origin announced but has not started
     * sending (see {@link UpstreamAttempt#awaitBodyStart}). Origins send a small body with its head or right after
     * it; a stream that starts later passes after this wait, its head delayed by it.
     */
    static final int BODY_START_GRACE_MILLIS = 100;

    private final ExchangeListener listener;

    UpstreamForwarder(ExchangeListener listener) {
        this.listener = listener;
    }

    @Override
    public void proceed(FilterExchange fx) throws IOException {
        Exchange x = (Exchange) fx;
        RequestScreen.afterFilters(x);
        // The deadline all tries share: the route's timeout, counted from the first try (a local: no object per
        // exchange holds it, see Retries.NONE).
        long start = System.nanoTime();
        long deadline = start + x.route.route().timeout().toNanos();
        Retries retries = Retries.start(x, x.route.route().policies().retry(), listener, start, deadline);
        Upstream upstream = x.route.upstream();
        long hash = RequestKey.hash(upstream.balancing().hashKey(), x.request, x.clientAddress());
        List<UpstreamMember> tried = List.of(); // a list of its own at the first retry: most exchanges make none
        for (int n = 0; ; n++) {
            UpstreamMember member = upstream.select(hash, tried);
            try {
                tryUpstream(x, member, n, retries, deadline);
            } catch (ProxyFailure f) {
                throwUnlessRetried(x, f, upstream, member, retries, deadline);
                tried = withTried(tried, member);
                continue;
            }
            if (answerIsFinal(x, upstream, member, retries)) {
                return;
            }
            tried = withTried(tried, member);
        }
    }

    // proceed's loop and tryUpstream are kept under C2's FreqInlineSize (325 bytes of bytecode), their cold parts in
    // the methods below: then C2 can compile them into the frame below them, and a stream parked on its origin holds
    // fewer and smaller frames across the wait (journal 2026-12-01-s50-stackchunk, OriginWaitPathInlineSizeTest).

    /** A failed attempt: closed and reported; thrown on unless the route's retry policy tries again. */
    private void throwUnlessRetried(Exchange x, ProxyFailure f, Upstream upstream, UpstreamMember member,
            Retries retries, long deadline) throws ProxyFailure {
        UpstreamAttempt failed = x.upstream.attempt;
        // A call cancelled by its own deadline or by its client tells nothing against the endpoint.
        boolean notTheOrigins = x.grpc.expired || ProxyHandler.cancelledByClient(x);
        // A refused stream whose upload still reads the client (sessions 57, 58): the body goes to the next attempt
        // at once (Retries.takeBodyForRefusal), only the origin's side of this one is stopped, so the client's input
        // is not cut; the next attempt sends what was kept, then what this upload's pending read brings, then the
        // rest (RefusedStreamCopy's class comment: one reader at a time). A gRPC stream or a full-duplex client that
        // waits for the origin's answer before it sends more gets it: nothing here waits for the client.
        boolean handOver = !notTheOrigins && failed.uploadRunning()
                && FailureClassifier.mayRetry(f, failed.facts(), true)
                && retries.takeBodyForRefusal(x, failed, deadline);
        if (handOver) {
            failed.releaseUpload();
        }
        // the body bytes this attempt read and sent count for the exchange even if no later attempt sends any (its
        // dial refused): the access log and loomgate_request_body said 0 for them (session 61)
        x.outcome.bytesIn = Math.max(x.outcome.bytesIn, failed.uploaded());
        failed.close();
        listener.attemptEnd(x, f);
        upstream.recordOutcome(member, notTheOrigins || !Retries.countsAgainstEndpoint(f));
        // A body relay that outlived its stop still holds the body, or its stop cut the client's: no retry.
        boolean again;
        try {
            again = !notTheOrigins && !x.pastDeadline() && !failed.bodyLost() && retries.mayRetry(x, f, failed.facts());
        } catch (ProxyFailure breakerOpen) { // the retry was due, but the route's breaker opened meanwhile
            cutUntakenBody(x, failed, handOver);
            throw breakerOpen;
        }
        if (!again) {
            cutUntakenBody(x, failed, handOver);
            throw f;
        }
    }

    /**
     * No retry takes up a body just handed over under a {@code Retry} (to its replay copy): the refused upload's
     * pending read of the client is cut now, as the refused stream's own copy does at the exchange's end
     * ({@code RefusedStreamCopy.abandon}); over HTTP/1.1 the connection then closes after its answer instead of
     * waiting up to 5 s for a body's rest the client may never send (session 61).
     */
    private static void cutUntakenBody(Exchange x, UpstreamAttempt failed, boolean handOver) {
        if (handOver && x.refusedStreamCopy == null) {
            failed.cut();
        }
    }

    /** An attempt's head: the final answer (left on the exchange), or closed and reported for the next try. */
    private boolean answerIsFinal(Exchange x, Upstream upstream, UpstreamMember member, Retries retries) {
        int status = x.upstream.head.status();
        upstream.recordOutcome(member, status < 502 || status > 504);
        // An answer while the body still streams to the origin (full duplex) is retried as Envoy does: only while
        // the replay buffer still has every byte read so far; then the retry takes the body over, the client's
        // input going on into the buffer. Past max-replay-size the answer is final: the body is in use.
        boolean uploading = retries.wouldRetryStatus(x, status) && x.upstream.attempt.uploadBusy();
        if (x.pastDeadline() || uploading && !retries.bodyReplayable()
                || !retries.mayRetryStatus(x, status, x.upstream.attempt.facts())
                || uploading && !retries.takeBodyForRetry(x)) {
            finalAnswer(x);
            return true;
        }
        if (uploading) {
            log.debug("{}: origin answered {} while the request body still streams: retried with the body", x,
                    status);
            x.upstream.attempt.releaseUpload();
        }
        x.upstream.attempt.close(); // the answer is not relayed: the connection goes with it
        listener.attemptEnd(x, null);
        x.upstream.head = null;
        return false;
    }

    private static List<UpstreamMember> withTried(List<UpstreamMember> tried, UpstreamMember member) {
        List<UpstreamMember> more = tried.isEmpty() ? new ArrayList<>(2) : tried;
        more.add(member);
        return more;
    }

    /** The attempt's answer goes to the client. */
    private static void finalAnswer(Exchange x) {
        // stopped beside this thread, by this answer
        if (x.upstream.attempt.answeredEarly() && !x.upstream.requestBodyCut) {
            log.debug("{}: origin answered and closes before the whole request body was sent; upload stopped", x);
            x.upstream.requestBodyCut = true;
            x.downstream.closeAfterResponse();
        }
    }

    /** One attempt: connect → sendHead → relayBody → readHead, to the member the balancer chose. */
    private void tryUpstream(Exchange x, UpstreamMember member, int number, Retries retries, long deadline)
            throws ProxyFailure {
        Route route = x.route.route();
        UpstreamAttempt attempt = new UpstreamAttempt(member, number);
        if (!(x.downstream.requestFraming() instanceof BodyFraming.None)) {
            // Only a request with a body has a relay to stop: no method reference kept by a GET's attempt
            attempt.stopClientBodyWith(x.downstream::stopRequestBody);
        }
        x.upstream.attempt = attempt;
        x.trace.sendUpstream(x.request.headers());
        listener.attemptStart(x);
        if (x.clientCancelled) {
            attempt.abort(); // the cancel came before this attempt was visible to it: connect fails at once
        }
        try {
            attempt.connect(GrpcCalls.withinDeadline(x, retries.tryDeadline(deadline, route.timeout())));
        } catch (IOException e) {
            throw FailureClassifier.of(x, e, Stage.CONNECT);
        }
        listener.upstreamAcquired(x, attempt.reused());
        try {
            if (x.grpc.hasDeadline()) {
                GrpcCalls.passDeadlineOn(x, attempt);
            }
            attempt.sendHead(x.request, x.requestFraming(), route.preserveHost(), x.trace); // trace: traceparent
            relayRequestBody(x, attempt, retries.body(x, number));
            ResponseHead head = attempt.readHead(
                    GrpcCalls.headTimeout(x, retries.tryTimeout(deadline, route.timeout())), x.upgradeRequested(), x);
            acceptHead(x, attempt, retries, head);
        } catch (IOException e) {
            throw FailureClassifier.of(x, e, Stage.FORWARD);
        }
        listener.responseHeadReceived(x);
    }

    /** The head just read: a switch checked, a cancelled attempt drained, the head and its framing on the exchange. */
    private static void acceptHead(Exchange x, UpstreamAttempt attempt, Retries retries, ResponseHead head)
            throws IOException {
        if (head.status() == 101) {
            Upgrades.checkSwitch(head, x.upgrades);
        }
        BodyFraming framing = attempt.responseFraming(x.request.method(), head);
        if (attempt.draining()) { // the client cancelled while the head was awaited: its connection is kept
            attempt.drainAfterCancel(head, framing);
            // A constant message: the classifier names the origin and route, the handler the cancel. Built from
            // the attempt (its toString inlined here) it trapped at the end of h2load runs (2,000 threads at once
            // in 1 of 8 W9 runs: toString's codec test, whose profile the training's cancels did not cover).
            throw new IOException("the client cancelled the request while the origin answered");
        }
        if (head.status() != 101 && retries.mayTryAgain(x)) {
            // An origin killed between its head and its body would otherwise cost the client a 502 that a
            // retry avoids: nothing of this response has reached the client yet.
            attempt.awaitBodyStart(framing, BODY_START_GRACE_MILLIS);
        }
        Retries.headArrived(x); // a copy kept only for a refused stream is not needed any more
        x.upstream.head = head;
        x.upstream.nanos = System.nanoTime() - attempt.sentNanos();
        x.upstream.framing = framing;
    }

    /**
     * Streams the client's body to the origin. An origin may answer before it has read the body (413, 401; RFC 9112
     * §9.5): when its answer starts arriving mid-upload, or the upload fails because it closed, the upload stops and
     * the answer is read and relayed (as HAProxy does), with the client's connection closed after it, since the rest
     * of its body is never read. A write failure with no answer behind it stays a failure.
     */
    private void relayRequestBody(Exchange x, UpstreamAttempt attempt, BodyInputStream body) throws IOException {
        try {
            x.outcome.bytesIn = attempt.relayBody(body, x.requestFraming(), x.route.route().timeout(), x);
            if (!attempt.answeredEarly()) {
                return;
            }
        } catch (BodyRelay.WriteFailed e) {
            if (!attempt.hasResponseBytes()) { // the origin closed with nothing to say: a failure, as before
                throw e;
            }
        }
        log.debug("{}: origin answered before the whole request body was sent; upload stopped", x);
        x.upstream.requestBodyCut = true;
        x.downstream.closeAfterResponse();
    }

    static void relayInterim(Exchange x, ResponseHead interim) throws IOException {
        ResponseHeadRewriter.interim(interim);
        x.downstream.sendInterim(interim);
    }
}
