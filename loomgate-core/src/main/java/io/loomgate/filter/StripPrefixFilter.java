package io.loomgate.filter;

import io.loomgate.http.RequestHead;
import java.io.IOException;
import java.util.List;

/**
 * Removes the first {@code parts} segments of the request path: {@code StripPrefix=1} sends {@code /users/42?x=1}
 * on as {@code /42?x=1}. Stripping every segment leaves {@code /}. The rest of the path and the query stay
 * byte-exact (empty segments are kept, nothing is decoded). Targets that are not origin-form (such as {@code *})
 * are left alone.
 *
 * @param parts how many segments to remove, at least 1
 */
record StripPrefixFilter(int parts) implements GatewayFilter {
    static final FilterFactory FACTORY = new BuiltinFilterFactory("StripPrefix", List.of("parts"),
            args -> new StripPrefixFilter(args.intAtLeast("parts", 1)));

    @Override
    public void filter(FilterExchange exchange, FilterChain chain) throws IOException {
        RequestHead request = exchange.request();
        String path = request.path();
        if (path.startsWith("/")) {
            exchange.setRequest(request.withPath(strip(path, parts)));
        }
        chain.proceed(exchange);
    }

    static String strip(String path, int parts) {
        int slash = 0;
        for (int n = 0; n < parts; n++) {
            int next = path.indexOf('/', slash + 1);
            if (next < 0) {
                return "/";
            }
            slash = next;
        }
        return path.substring(slash);
    }
}
