/**
 * The proxy: what the gateway does with one request, as a chain of phases run top to bottom on the request's own
 * thread by {@link io.loomgate.proxy.ProxyHandler}.
 *
 * <pre>
 *  answeredLocally ── OPTIONS * → 200, CONNECT → 405
 *  matchRoute ─────── no route → 404
 *  admit ──────────── route over max-in-flight after queue-timeout → 503 + Retry-After
 *  prepareUpstreamRequest   hop-by-hop out; X-Forwarded-*, Forwarded, Via, traceparent in
 *  ┌ requestFilters (route filters, before proceed) ─── a filter may reply locally (RedirectTo)
 *  │ forward (the chain's last link)
 *  │   selectEndpoint → acquireConnection ─── failToConnect: refused 502, timeout 502, pool full 503
 *  │   sendRequestHead → relayRequestBody → readResponseHead
 *  │       └─ failWhileProxying: no head in time 504, reset/invalid 502;
 *  │          a reused connection that failed before any response byte: retried once, fresh (idempotent, no body)
 *  └ responseFilters (route filters, after proceed)
 *  relayResponse: sendHead → relayResponseBody (flushed per read) → releaseConnection | discard
 *      └─ upstream dies mid-body → the client connection is aborted, never a truncated body that looks complete
 *  tunnel (after 101): two pipes until either side closes
 *  exchangeEnd | failToProxy (LocalReplies, logged once, listener.exchangeFailed)
 * </pre>
 * "Downstream" is the client side, "upstream" the origin side, everywhere.
 */
package io.loomgate.proxy;
