package io.loomgate.filter;

import io.loomgate.http.ResponseHead;
import java.io.IOException;
import java.util.List;

/**
 * Replaces every response header field of a name with one: {@code SetResponseHeader=X-Response-Red, blue}. The
 * value may use the route's variables ({@code {segment}}).
 */
final class SetResponseHeaderFilter implements GatewayFilter {
    static final FilterFactory FACTORY = new BuiltinFilterFactory("SetResponseHeader", List.of("name", "value"),
            args -> new SetResponseHeaderFilter(args.required("name"), args.present("value")));

    private final String name;
    private final HeaderValue value;

    SetResponseHeaderFilter(String name, String value) {
        this.name = HeaderFields.name("name", name);
        this.value = new HeaderValue(value);
    }

    @Override
    public void filter(FilterExchange exchange, FilterChain chain) throws IOException {
        chain.proceed(exchange);
        ResponseHead response = exchange.response();
        if (response != null) {
            response.headers().set(name, value.valueFor(exchange));
        }
    }

    @Override
    public String toString() {
        return "SetResponseHeader[" + name + ": " + value + "]";
    }
}
