package io.loomgate.filter;

import io.loomgate.http.Headers;
import java.io.IOException;
import java.util.List;

/**
 * Spring Cloud Gateway's {@code MapRequestHeader=Blue, X-Request-Red}: when the request has {@code fromHeader}, each
 * of its values is added to {@code toHeader} (after any already there); without it, nothing changes.
 */
record MapRequestHeaderFilter(String fromHeader, String toHeader) implements GatewayFilter {
    static final FilterFactory FACTORY = new BuiltinFilterFactory("MapRequestHeader",
            List.of("fromHeader", "toHeader"), args -> new MapRequestHeaderFilter(
                    HeaderFields.name("fromHeader", args.required("fromHeader")),
                    HeaderFields.notHost("toHeader", HeaderFields.name("toHeader", args.required("toHeader")),
                            "use SetRequestHostHeader")));

    @Override
    public void filter(FilterExchange exchange, FilterChain chain) throws IOException {
        Headers headers = exchange.request().headers();
        for (String v : List.copyOf(headers.all(fromHeader))) {
            headers.add(toHeader, v);
        }
        chain.proceed(exchange);
    }
}
