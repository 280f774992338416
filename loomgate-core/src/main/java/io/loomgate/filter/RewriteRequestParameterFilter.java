package io.loomgate.filter;

import io.loomgate.http.RequestHead;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Spring Cloud Gateway's {@code RewriteRequestParameter=campaign,fall2023}: where the query has pairs named
 * {@code campaign}, they all go and one {@code campaign=fall2023} is appended (where SCG puts it too); a query without
 * that name is left alone. As {@link RequestParameterFilter}, the query is edited raw (other pairs byte for byte, names
 * compared without decoding); the replacement is a literal, percent-encoded where it could end the pair or is not
 * allowed in a request line ({@code fall 2023} is sent as {@code fall%202023}).
 */
record RewriteRequestParameterFilter(String name, String replacement) implements GatewayFilter {
    static final FilterFactory FACTORY = new BuiltinFilterFactory("RewriteRequestParameter",
            List.of("name", "replacement"), args -> new RewriteRequestParameterFilter(
                    RequestParameterFilter.name(args.required("name")),
                    RequestParameterFilter.encode(args.present("replacement"))));

    @Override
    public void filter(FilterExchange exchange, FilterChain chain) throws IOException {
        RequestHead request = exchange.request();
        if (request.path().startsWith("/") && request.query() != null && !request.query().isEmpty()) {
            List<String> kept = new ArrayList<>();
            boolean found = false;
            for (String pair : request.query().split("&", -1)) {
                int eq = pair.indexOf('=');
                if ((eq < 0 ? pair : pair.substring(0, eq)).equals(name)) {
                    found = true;
                } else {
                    kept.add(pair);
                }
            }
            if (found) {
                kept.add(name + "=" + replacement);
                exchange.setRequest(request.withTarget(request.path() + "?" + String.join("&", kept)));
            }
        }
        chain.proceed(exchange);
    }
}
