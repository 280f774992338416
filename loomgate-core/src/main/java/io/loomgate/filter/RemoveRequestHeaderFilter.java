package io.loomgate.filter;

import java.io.IOException;
import java.util.List;

/**
 * Removes every request header field of a name: {@code RemoveRequestHeader=X-Request-Foo}. Host cannot be removed
 * (HTTP/1.1 requires it).
 */
final class RemoveRequestHeaderFilter implements GatewayFilter {
    static final FilterFactory FACTORY = new BuiltinFilterFactory("RemoveRequestHeader", List.of("name"),
            args -> new RemoveRequestHeaderFilter(args.required("name")));

    private final String name;

    RemoveRequestHeaderFilter(String name) {
        this.name = HeaderFields.notHost("name", HeaderFields.name("name", name), "HTTP/1.1 requires it");
    }

    @Override
    public void filter(FilterExchange exchange, FilterChain chain) throws IOException {
        exchange.request().headers().remove(name);
        chain.proceed(exchange);
    }

    @Override
    public String toString() {
        return "RemoveRequestHeader[" + name + "]";
    }
}
