package io.loomgate.filter;

import java.io.IOException;
import java.util.List;

/** Runs a list of filters around a terminal link. (Placeholder until the routing branch lands.) */
public final class FilterChains {
    private FilterChains() {
    }

    public static void run(List<GatewayFilter> filters, FilterExchange exchange, FilterChain terminal)
            throws IOException {
        new Link(filters, 0, terminal).proceed(exchange);
    }

    private record Link(List<GatewayFilter> filters, int index, FilterChain terminal) implements FilterChain {
        @Override
        public void proceed(FilterExchange exchange) throws IOException {
            if (index == filters.size()) {
                terminal.proceed(exchange);
            } else {
                filters.get(index).filter(exchange, new Link(filters, index + 1, terminal));
            }
        }
    }
}
