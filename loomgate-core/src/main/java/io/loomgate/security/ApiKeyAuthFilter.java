package io.loomgate.security;

import io.loomgate.extension.ExtensionArgs;
import io.loomgate.filter.BuiltinFilterFactory;
import io.loomgate.filter.FilterChain;
import io.loomgate.filter.FilterExchange;
import io.loomgate.filter.FilterFactory;
import io.loomgate.filter.GatewayFilter;
import io.loomgate.http.Headers;
import io.loomgate.http.RequestHead;
import java.io.IOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;

/**
 * Lets a request through only with a known API key, in a header ({@code X-Api-Key} by default) or, if configured, a
 * query parameter. The key's name becomes the exchange's principal (and, with {@code principal-header}, a header
 * upstream, whose client-sent copies are removed). The key itself never reaches the origin: its header and query
 * parameter are removed. Missing or unknown key: 401 with {@code WWW-Authenticate: ApiKey}.
 */
record ApiKeyAuthFilter(String header, String queryParam, ApiKeys keys, String principalHeader)
        implements GatewayFilter {
    static final FilterFactory FACTORY = new BuiltinFilterFactory("ApiKeyAuth", List.of("header", "query-param",
            "keys", "keys-file", "principal-header"), ApiKeyAuthFilter::create);

    private static GatewayFilter create(ExtensionArgs a) {
        String header = a.headerName("header", "X-Api-Key");
        String query = a.optional("query-param", null);
        String principalHeader = a.headerName("principal-header", null);
        Path file = a.has("keys-file") ? Path.of(a.required("keys-file")) : null;
        return new ApiKeyAuthFilter(header, query, ApiKeys.of(a.mapping("keys"), file), principalHeader);
    }

    @Override
    public void filter(FilterExchange exchange, FilterChain chain) throws IOException {
        Headers h = exchange.request().headers();
        if (principalHeader != null) {
            h.remove(principalHeader);
        }
        List<String> presented = h.all(header);
        h.remove(header);
        if (queryParam != null) {
            presented = new java.util.ArrayList<>(presented);
            presented.addAll(removeQueryParam(exchange));
        }
        if (presented.isEmpty()) {
            SecurityReplies.reply(exchange, 401, "an API key is required", "WWW-Authenticate", challenge());
            return;
        }
        String name = presented.size() == 1 ? keys.nameOf(presented.get(0).trim()) : null;
        if (name == null) {
            SecurityReplies.reply(exchange, 401, presented.size() == 1 ? "the API key is not valid"
                    : "more than one API key", "WWW-Authenticate", challenge());
            return;
        }
        exchange.setPrincipal(name);
        if (principalHeader != null) {
            h.set(principalHeader, name);
        }
        chain.proceed(exchange);
    }

    /** The 401's {@code WWW-Authenticate}: where a key is looked for. */
    private String challenge() {
        return "ApiKey header=\"" + header + "\"" + (queryParam == null ? "" : ", query=\"" + queryParam + "\"");
    }

    /** Takes every {@code queryParam=value} out of the target and returns the decoded values. */
    private List<String> removeQueryParam(FilterExchange exchange) {
        RequestHead r = exchange.request();
        String target = r.target();
        int q = target.indexOf('?');
        if (q < 0) {
            return List.of();
        }
        List<String> values = new java.util.ArrayList<>();
        StringBuilder kept = new StringBuilder();
        for (String pair : target.substring(q + 1).split("&", -1)) {
            int eq = pair.indexOf('=');
            String name = eq < 0 ? pair : pair.substring(0, eq);
            if (decode(name).equals(queryParam)) {
                values.add(eq < 0 ? "" : decode(pair.substring(eq + 1)));
            } else {
                kept.append(kept.isEmpty() ? "" : "&").append(pair);
            }
        }
        if (!values.isEmpty()) {
            String path = target.substring(0, q);
            exchange.setRequest(new RequestHead(r.method(), kept.isEmpty() ? path : path + "?" + kept, r.version(),
                    r.headers()));
        }
        return values;
    }

    private static String decode(String s) {
        try {
            return URLDecoder.decode(s, StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            return s; // a malformed escape is compared as written
        }
    }
}
