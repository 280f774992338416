package io.loomgate.filter;

import io.loomgate.http.ResponseHead;
import java.io.IOException;
import java.util.List;

/**
 * Removes every response header field of a name: {@code RemoveResponseHeader=X-Response-Foo}.
 */
final class RemoveResponseHeaderFilter implements GatewayFilter {
    static final FilterFactory FACTORY = new BuiltinFilterFactory("RemoveResponseHeader", List.of("name"),
            args -> new RemoveResponseHeaderFilter(args.required("name")));

    private final String name;

    RemoveResponseHeaderFilter(String name) {
        this.name = HeaderFields.name("name", name);
    }

    @Override
    public void filter(FilterExchange exchange, FilterChain chain) throws IOException {
        chain.proceed(exchange);
        ResponseHead response = exchange.response();
        if (response != null) {
            response.headers().remove(name);
        }
    }

    @Override
    public String toString() {
        return "RemoveResponseHeader[" + name + "]";
    }
}
