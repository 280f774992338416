package io.loomgate.filter;

import io.loomgate.http.RequestHead;
import io.loomgate.http.ResponseHead;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Map;

/**
 * What a filter may see and change of one exchange. Before {@code proceed}: the request head (replace it to change
 * method or target; edit its headers in place). After: the response head from the origin (replace it to change the
 * status; edit its headers in place). The body streams are the proxy's business, not a filter's.
 */
public interface FilterExchange {

    String routeId();

    /** The request as it will be (or was) sent upstream. */
    RequestHead request();

    void setRequest(RequestHead request);

    /** The request target as the client sent it, before any filter changed it. */
    String originalTarget();

    /** Template variables bound by the route's predicates ({@code {segment}} in a Path pattern). */
    Map<String, String> uriVariables();

    InetSocketAddress remoteAddress();

    /** The response head, once the chain's last link has received it; null before. */
    ResponseHead response();

    void setResponse(ResponseHead response);

    /**
     * Answers the client without going upstream (redirects, short-circuits). The filter must not call proceed after
     * this; filters before it still see the reply as the response after their proceed returns. From this call on,
     * {@link #response()} returns {@code head} ({@link FilterChains} relies on it to tell a local reply from a filter
     * that forgot to proceed).
     */
    void replyLocally(ResponseHead head, byte[] body);

    /** Per-exchange attributes for filters that cooperate. */
    Map<String, Object> attributes();

    /**
     * Who is calling, as an authentication filter established it (a token's subject, an API key's name), for the
     * filters after it (a rate limiter's key) and the access log; null when no filter set one.
     */
    String principal();

    void setPrincipal(String name);

    /**
     * The client's IP address honouring {@code server.trusted-proxies}: the socket peer, or, when the peer is a
     * trusted proxy, the nearest address in X-Forwarded-For that is not one; null when that entry is not an IP
     * literal (IP rules then refuse the request rather than guess).
     */
    default InetAddress clientIp() {
        return remoteAddress().getAddress();
    }

    /**
     * Caps the request body at {@code maxBytes}. The proxy owns the body stream, so it enforces the cap while relaying:
     * a body that passes it stops being forwarded, the client gets 413 with the connection closed, and the origin's
     * connection is discarded before the body's end, so the origin never receives a truncated body that looks complete.
     * Call before proceed.
     */
    default void limitRequestBody(long maxBytes) {
        throw new UnsupportedOperationException("this exchange cannot limit its request body");
    }

    /**
     * Reads the whole request body now, at most {@code maxBytes}, and returns it (the same array on a second call; do
     * not change it). From then on the origin gets it with a Content-Length instead of streamed, and every attempt
     * (a retry, a breaker's fallback) sends it again from its first byte. A body over the bound fails the exchange
     * with 413 (the client's connection closed, since the rest of its body is unread); a client that goes away
     * mid-body fails it without an upstream call. Call before proceed.
     */
    default byte[] cacheRequestBody(long maxBytes) throws IOException {
        throw new UnsupportedOperationException("this exchange cannot read its request body");
    }

    /**
     * Lets {@code tap} see the response body as it is relayed (call after proceed returned, with the origin's head in
     * {@link #response()}). Only a filter that asks pays: a response without a tap is relayed as before. Ignored for a
     * local reply, a tunnel (101) or a response the breaker replaced.
     */
    default void tapResponseBody(ResponseBodyTap tap) {
        throw new UnsupportedOperationException("this exchange cannot tap its response body");
    }
}
