package io.loomgate.filter;

import io.loomgate.http.ResponseHead;
import java.io.IOException;
import java.util.List;

/**
 * Adds a response header field after any of the same name, once the origin (or a local reply) answered:
 * {@code AddResponseHeader=X-Response-Red, blue}. The value may use the route's variables ({@code {segment}}).
 */
final class AddResponseHeaderFilter implements GatewayFilter {
    static final FilterFactory FACTORY = new BuiltinFilterFactory("AddResponseHeader", List.of("name", "value"),
            args -> new AddResponseHeaderFilter(args.required("name"), args.present("value")));

    private final String name;
    private final HeaderValue value;

    AddResponseHeaderFilter(String name, String value) {
        this.name = HeaderFields.name("name", name);
        this.value = new HeaderValue(value);
    }

    @Override
    public void filter(FilterExchange exchange, FilterChain chain) throws IOException {
        chain.proceed(exchange);
        ResponseHead response = exchange.response();
        if (response != null) {
            response.headers().add(name, value.valueFor(exchange));
        }
    }

    @Override
    public String toString() {
        return "AddResponseHeader[" + name + ": " + value + "]";
    }
}
