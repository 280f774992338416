package io.loomgate.filter;

import java.io.IOException;

/** The rest of the chain after the current filter; its last link forwards the request upstream. */
@FunctionalInterface
public interface FilterChain {
    void proceed(FilterExchange exchange) throws IOException;
}
