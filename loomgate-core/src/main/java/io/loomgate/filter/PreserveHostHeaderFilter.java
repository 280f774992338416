package io.loomgate.filter;

import java.io.IOException;
import java.util.List;

/**
 * Spring Cloud Gateway's {@code PreserveHostHeader}: the client's {@code Host} goes to the origin rather than the
 * origin's own {@code host:port}. Which Host is sent is the route's setting ({@code preserve-host}), read by the
 * proxy when it writes the request head; this filter only marks the route, and the assembly turns the mark into
 * {@code preserve-host: true}, so the proxy has one place that decides. Loomgate's default is already to preserve;
 * the filter matters on a route that says {@code preserve-host: false}.
 */
public final class PreserveHostHeaderFilter implements GatewayFilter {
    static final FilterFactory FACTORY = new BuiltinFilterFactory("PreserveHostHeader", List.of(),
            args -> new PreserveHostHeaderFilter());

    private PreserveHostHeaderFilter() {
    }

    /** Whether a route's filter chain asks for the client's Host to be kept. */
    public static boolean requestedIn(List<GatewayFilter> chain) {
        return chain.stream().anyMatch(PreserveHostHeaderFilter.class::isInstance);
    }

    @Override
    public void filter(FilterExchange exchange, FilterChain chain) throws IOException {
        chain.proceed(exchange);
    }
}
