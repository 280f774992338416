package io.loomgate.filter;

import io.loomgate.extension.ExtensionArgs;
import io.loomgate.http.Headers;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Spring Cloud Gateway's {@code AddRequestHeadersIfNotPresent=X-Request-Color-1:blue,X-Request-Color-2:green}: each
 * {@code name:value} is added only when the request has no field of that name. Values may use the route's variables.
 */
final class AddRequestHeadersIfNotPresentFilter implements GatewayFilter {
    /** Gathers the shorthand's values into {@code headers}, as SCG's {@code GATHER_LIST} does. */
    static final FilterFactory FACTORY = new FilterFactory() {
        @Override
        public String name() {
            return "AddRequestHeadersIfNotPresent";
        }

        @Override
        public List<String> argNames() {
            return List.of("headers");
        }

        @Override
        public boolean gathersList() {
            return true;
        }

        @Override
        public GatewayFilter create(Map<String, String> args) {
            return new AddRequestHeadersIfNotPresentFilter(new ExtensionArgs(args).list("headers"));
        }
    };

    private record Field(String name, HeaderValue value) {
    }

    private final List<Field> fields = new ArrayList<>();

    AddRequestHeadersIfNotPresentFilter(List<String> written) {
        for (String pair : written) {
            int colon = pair.indexOf(':');
            if (colon <= 0) {
                throw new IllegalArgumentException("headers: expected name:value, got '" + pair + "'");
            }
            String name = HeaderFields.notHost("headers", HeaderFields.name("headers", pair.substring(0, colon)
                    .trim()), "use SetRequestHostHeader");
            fields.add(new Field(name, new HeaderValue(pair.substring(colon + 1).trim())));
        }
    }

    @Override
    public void filter(FilterExchange exchange, FilterChain chain) throws IOException {
        Headers headers = exchange.request().headers();
        for (Field f : fields) {
            if (!headers.contains(f.name())) {
                headers.add(f.name(), f.value().valueFor(exchange));
            }
        }
        chain.proceed(exchange);
    }
}
