package io.loomgate.filter;

import io.loomgate.http.RequestHead;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Spring Cloud Gateway's {@code AddRequestParameter=red, blue} (appends {@code red=blue} to the query) and
 * {@code RemoveRequestParameter=red} (removes every {@code red} pair). The query is edited raw, as the path filters
 * edit the path: other pairs stay byte for byte, names are compared without decoding. A value from the route's
 * variables ({@code bar-{segment}}) is percent-encoded where it could end the pair or the query ({@code & # + =},
 * and anything not allowed in a request line). Targets that are not origin-form are left alone.
 *
 * @param value null to remove
 */
record RequestParameterFilter(String name, HeaderValue value) implements GatewayFilter {
    static final FilterFactory ADD = new BuiltinFilterFactory("AddRequestParameter", List.of("name", "value"),
            args -> new RequestParameterFilter(name(args.required("name")),
                    new HeaderValue(PathText.requestLineSafe("value", args.present("value")))));
    static final FilterFactory REMOVE = new BuiltinFilterFactory("RemoveRequestParameter", List.of("name"),
            args -> new RequestParameterFilter(name(args.required("name")), null));

    static String name(String written) {
        PathText.requestLineSafe("name", written);
        if (written.chars().anyMatch(c -> c == '&' || c == '=' || c == '#' || c == '?')) {
            throw new IllegalArgumentException("name: must not contain & = # or ?, got '" + written + "'");
        }
        return written;
    }

    @Override
    public void filter(FilterExchange exchange, FilterChain chain) throws IOException {
        RequestHead request = exchange.request();
        if (request.path().startsWith("/")) {
            List<String> pairs = new ArrayList<>();
            if (request.query() != null && !request.query().isEmpty()) {
                for (String pair : request.query().split("&", -1)) {
                    int eq = pair.indexOf('=');
                    String n = eq < 0 ? pair : pair.substring(0, eq);
                    if (value != null || !n.equals(name)) {
                        pairs.add(pair);
                    }
                }
            }
            if (value != null) {
                pairs.add(name + "=" + encode(value.valueFor(exchange)));
            }
            exchange.setRequest(request.withTarget(pairs.isEmpty() ? request.path()
                    : request.path() + "?" + String.join("&", pairs)));
        }
        chain.proceed(exchange);
    }

    /** Percent-encodes what would end the pair or the query, or is not allowed in a request line. */
    static String encode(String s) {
        StringBuilder out = new StringBuilder();
        for (byte b : s.getBytes(StandardCharsets.UTF_8)) {
            int c = b & 0xff;
            if (c <= 0x20 || c >= 0x7f || c == '&' || c == '#' || c == '+' || c == '=') {
                out.append('%').append(Character.toUpperCase(Character.forDigit(c >> 4, 16)))
                        .append(Character.toUpperCase(Character.forDigit(c & 0xf, 16)));
            } else {
                out.append((char) c);
            }
        }
        return out.toString();
    }
}
