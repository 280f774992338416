/**
 * The proxy: what the gateway does with one request, as a chain of phases run top to bottom on the request's own
 * thread by {@link io.loomgate.proxy.ProxyHandler}.
 *
 * <pre>
 *  GrpcCalls ──────── POST + application/grpc… = a gRPC call: the gateway's answers become gRPC statuses
 *                     (GrpcReplies); over HTTP/1.1 → 505; grpc-timeout → the call's deadline on the shared
 *                     watchdog (it cancels the attempt in flight), malformed → INTERNAL
 *  RequestScreen ──── OPTIONS * → 200; CONNECT → 405; not origin-form, dot-segment → 400
 *  cleanForwardingFields    ForwardedHeaders: X-Forwarded-*, Forwarded, Via, X-Forwarded-Client-Cert made the
 *                           gateway's, server.strip-request-headers out (untrusted peers): before any predicate;
 *                           this instance's id appended to CDN-Loop (RFC 8586)
 *  TraceContext.start ─ the exchange's trace ids (traceparent continued or a new trace; its own span id)
 *  matchRoute ─────── BoundRoutes (route + upstream + admission, bound at start-up) → no route → 404
 *  refuseLoop ─────── CDN-Loop holds this instance's id, or Via ten entries of a Loomgate → 508 (a loop)
 *  admit ──────────── route over max-in-flight after queue-timeout → 503 + Retry-After
 *  prepareUpstreamRequest   hop-by-hop out (never Host or forwarding fields); Upgrade kept only for the route's
 *                           upgrades (never h2c)
 *  ┌ requestFilters (route filters, before proceed) ─── a filter may reply locally (RedirectTo)
 *  │ UpstreamForwarder (the chain's last link): attempts until one gets a response head
 *  │   tryUpstream = one UpstreamAttempt (owns its lease until finish or close; its UpstreamCodec,
 *  │     Http1Codec or Http2Codec, speaks the lease's protocol):
 *  │     select endpoint → traceparent (a new span id per attempt) → connect ─── refused 502, timeout 502,
 *  │       pool full 503
 *  │     sendHead → relayBody → readHead (1xx passed on) ─── no head in time 504, reset/invalid 502
 *  │       relayBody, full duplex: the body goes beside this thread (to HTTP/2 and https origins always, to http
 *  │         ones when chunked or over 64 KiB, once they answer mid-upload or the client pauses mid-body)
 *  │         while the answer is read and
 *  │         relayed; an answer that says Connection: close (413 …) stops the upload: relayed, Connection: close
 *  │       readHead: the route timeout spans all 1xx; more than 32 of them → 502; a 101 must name an asked protocol
 *  │   a failed attempt is closed (connection discarded); FailureClassifier.mayRetry decides on another:
 *  │     a reset, before any response byte, on a reused connection, idempotent, no body → once, fresh
 *  └ responseFilters (route filters, after proceed)
 *  relayResponse: ResponseHeadRewriter → sendHead → body relay (flushed per read) → endUpload (the body's relay
 *      beside ends, or is stopped: both connections then close) → attempt.finish(reusable)
 *      └─ upstream dies mid-body → the client connection is aborted, never a truncated body that looks complete;
 *         but while no byte has left the write buffer the response is retracted and answered 502
 *  tunnel (after 101): two pipes until either side closes; the attempt then discards the connection
 *  end: exchangeEnd | exchangeFailed + LocalReplies.answer (answerGrpc for a gRPC call: trailers-only,
 *       or trailers after a relayed head) — the one place an exchange's end is reported
 * </pre>
 * Every {@code IOException} becomes a {@link io.loomgate.proxy.ProxyFailure} in one function,
 * {@code FailureClassifier.classify} (called through {@code FailureClassifier.of} with the exchange), from its type and the stage it came from. "Downstream" is the client side,
 * "upstream" the origin side, everywhere.
 */
package io.loomgate.proxy;
