package io.loomgate.filter;

import java.io.IOException;

/**
 * One link of a route's filter chain. A filter may edit the request through the exchange, must then call
 * {@link FilterChain#proceed} exactly once (or answer locally with {@link FilterExchange#replyLocally} and not
 * proceed), and after proceed returns may edit the response head. Filters run on the request's own thread and may
 * block. Users add their own by registering a {@link FilterFactory}.
 */
@FunctionalInterface
public interface GatewayFilter {
    void filter(FilterExchange exchange, FilterChain chain) throws IOException;
}
