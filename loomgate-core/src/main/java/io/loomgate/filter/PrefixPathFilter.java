package io.loomgate.filter;

import io.loomgate.http.RequestHead;
import java.io.IOException;
import java.util.List;

/**
 * Puts a prefix before the request path: {@code PrefixPath=/api} sends {@code /users?x=1} on as
 * {@code /api/users?x=1}. The query stays byte-exact. Targets that are not origin-form are left alone.
 *
 * @param prefix starts with '/', without a trailing '/' (one is dropped when written)
 */
record PrefixPathFilter(String prefix) implements GatewayFilter {
    static final FilterFactory FACTORY = new BuiltinFilterFactory("PrefixPath", List.of("prefix"),
            args -> new PrefixPathFilter(args.required("prefix")));

    PrefixPathFilter {
        PathText.absolutePath("prefix", prefix);
        if (prefix.length() > 1 && prefix.endsWith("/")) {
            prefix = prefix.substring(0, prefix.length() - 1);
        }
        if (prefix.equals("/")) {
            prefix = "";
        }
    }

    @Override
    public void filter(FilterExchange exchange, FilterChain chain) throws IOException {
        RequestHead request = exchange.request();
        String path = request.path();
        if (path.startsWith("/")) {
            exchange.setRequest(request.withPath(prefix + path));
        }
        chain.proceed(exchange);
    }
}
