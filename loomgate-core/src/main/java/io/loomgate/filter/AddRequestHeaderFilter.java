package io.loomgate.filter;

import java.io.IOException;
import java.util.List;

/**
 * Adds a request header field after any of the same name: {@code AddRequestHeader=X-Request-Red, blue}. The value may
 * use the route's variables ({@code {segment}}). Host cannot be added (a second Host makes the request invalid; use
 * SetRequestHeader).
 */
final class AddRequestHeaderFilter implements GatewayFilter {
    static final FilterFactory FACTORY = new BuiltinFilterFactory("AddRequestHeader", List.of("name", "value"),
            args -> new AddRequestHeaderFilter(args.required("name"), args.present("value")));

    private final String name;
    private final HeaderValue value;

    AddRequestHeaderFilter(String name, String value) {
        this.name = HeaderFields.notHost("name", HeaderFields.name("name", name), "use SetRequestHeader to replace it");
        this.value = new HeaderValue(value);
    }

    @Override
    public void filter(FilterExchange exchange, FilterChain chain) throws IOException {
        exchange.request().headers().add(name, value.valueFor(exchange));
        chain.proceed(exchange);
    }

    @Override
    public String toString() {
        return "AddRequestHeader[" + name + ": " + value + "]";
    }
}
