package io.loomgate.ratelimit;

import io.loomgate.filter.FilterExchange;
import io.loomgate.http.Tokens;
import java.net.InetSocketAddress;

/**
 * Which bucket a request draws from. Written in configuration as {@code key-resolver:}: {@code client-ip} (the
 * default), {@code header:Name}, {@code route}, {@code path} or {@code principal}. A resolver answers null or empty
 * when the request has no key; the filter then applies {@code deny-empty-key}.
 */
@FunctionalInterface
interface KeyResolver {
    String resolve(FilterExchange exchange);

    /** The address of the client's TCP peer (not X-Forwarded-For, which any client can write). */
    KeyResolver CLIENT_IP = exchange -> {
        InetSocketAddress peer = exchange.remoteAddress();
        return peer == null || peer.getAddress() == null ? null : peer.getAddress().getHostAddress();
    };
    KeyResolver ROUTE = FilterExchange::routeId;
    /** The path as the client sent it, before any filter rewrote it; without the query. */
    KeyResolver PATH = exchange -> {
        String target = exchange.originalTarget();
        int q = target.indexOf('?');
        return q < 0 ? target : target.substring(0, q);
    };
    /** The authenticated principal an auth filter earlier in the chain set; none without one. */
    KeyResolver PRINCIPAL = FilterExchange::principal;

    /**
     * @throws IllegalArgumentException naming the accepted forms
     */
    static KeyResolver parse(String text) {
        String t = text.trim();
        switch (t) {
            case "client-ip":
                return CLIENT_IP;
            case "route":
                return ROUTE;
            case "path":
                return PATH;
            case "principal":
                return PRINCIPAL;
            default:
                break;
        }
        if (t.regionMatches(true, 0, "header:", 0, 7)) {
            String name = t.substring(7).trim();
            if (!Tokens.isToken(name)) {
                throw new IllegalArgumentException("key-resolver: '" + text + "' needs a header name after "
                        + "'header:', like header:X-Api-Key");
            }
            return exchange -> exchange.request().headers().first(name);
        }
        String hint = t.startsWith("#{") ? " (Spring bean references cannot be used here; pick a built-in resolver)"
                : "";
        throw new IllegalArgumentException("key-resolver: expected client-ip, header:<name>, route, path or "
                + "principal, got '" + text + "'" + hint);
    }
}
