package io.loomgate.filter;

import java.io.IOException;
import java.util.List;

/**
 * Replaces every request header field of a name with one: {@code SetRequestHeader=X-Request-Red, blue}. The value may
 * use the route's variables ({@code {segment}}).
 */
final class SetRequestHeaderFilter implements GatewayFilter {
    static final FilterFactory FACTORY = new BuiltinFilterFactory("SetRequestHeader", List.of("name", "value"),
            args -> new SetRequestHeaderFilter(args.required("name"), args.present("value")));

    private final String name;
    private final HeaderValue value;

    SetRequestHeaderFilter(String name, String value) {
        this.name = HeaderFields.name("name", name);
        this.value = new HeaderValue(value);
    }

    @Override
    public void filter(FilterExchange exchange, FilterChain chain) throws IOException {
        exchange.request().headers().set(name, value.valueFor(exchange));
        chain.proceed(exchange);
    }

    @Override
    public String toString() {
        return "SetRequestHeader[" + name + ": " + value + "]";
    }
}
