package io.loomgate.security;

import io.loomgate.extension.ExtensionArgs;
import io.loomgate.filter.BuiltinFilterFactory;
import io.loomgate.filter.FilterChain;
import io.loomgate.filter.FilterExchange;
import io.loomgate.filter.FilterFactory;
import io.loomgate.filter.GatewayFilter;
import io.loomgate.http.Headers;
import io.loomgate.http.ResponseHead;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Cross-origin resource sharing (the Fetch standard's CORS protocol) answered by the gateway, as Spring's
 * {@code DefaultCorsProcessor} does. A preflight ({@code OPTIONS} with {@code Origin} and
 * {@code Access-Control-Request-Method}) never reaches the origin: an allowed origin, method and header list get
 * 204 with the {@code Access-Control-Allow-*} fields, anything else 403 without them. An actual request is forwarded;
 * its response gets {@code Access-Control-Allow-Origin} (and credentials, exposed headers) only when its origin is
 * allowed. The gateway owns the policy: CORS fields the origin set are removed, and {@code Vary: Origin} is always
 * added so caches keep answers for different origins apart. Immutable.
 */
final class CorsFilter implements GatewayFilter {
    static final FilterFactory FACTORY = new BuiltinFilterFactory("Cors", List.of("allowed-origins",
            "allowed-methods", "allowed-headers", "exposed-headers", "allow-credentials", "max-age"),
            CorsFilter::create);

    private static final List<String> ORIGIN_FIELDS = List.of("Access-Control-Allow-Origin",
            "Access-Control-Allow-Credentials", "Access-Control-Expose-Headers", "Access-Control-Allow-Methods",
            "Access-Control-Allow-Headers", "Access-Control-Max-Age");

    private final boolean anyOrigin;
    private final List<Pattern> origins;
    private final Set<String> methods;
    private final String methodList;
    private final boolean anyHeader;
    private final Set<String> headers;
    private final String exposed;
    private final boolean credentials;
    private final long maxAgeSeconds;

    private CorsFilter(List<String> origins, List<String> methods, List<String> headers, List<String> exposed,
                       boolean credentials, Duration maxAge) {
        this.anyOrigin = origins.contains("*");
        this.origins = origins.stream().filter(o -> !o.equals("*")).map(CorsFilter::originPattern).toList();
        this.methods = Set.copyOf(methods.stream().map(m -> m.toUpperCase(Locale.ROOT)).toList());
        this.methodList = String.join(", ", methods.stream().map(m -> m.toUpperCase(Locale.ROOT)).toList());
        this.anyHeader = headers.contains("*");
        this.headers = Set.copyOf(headers.stream().map(h -> h.toLowerCase(Locale.ROOT)).toList());
        this.exposed = exposed.isEmpty() ? null : String.join(", ", exposed);
        this.credentials = credentials;
        this.maxAgeSeconds = maxAge.toSeconds();
    }

    private static GatewayFilter create(ExtensionArgs a) {
        List<String> origins = a.list("allowed-origins", List.of());
        if (origins.isEmpty()) {
            throw new IllegalArgumentException("missing argument 'allowed-origins' (a list of origins like "
                    + "https://app.example.com, https://*.example.com, or *)");
        }
        for (String o : origins) {
            if (!o.equals("*") && !o.matches("(?i)[a-z][a-z0-9+.-]*://[^/?#\\s]+")) {
                throw new IllegalArgumentException("allowed-origins: '" + o + "' is not an origin (scheme://host"
                        + "[:port], no path), '*', or a pattern like https://*.example.com");
            }
        }
        boolean credentials = a.bool("allow-credentials", false);
        if (credentials && origins.contains("*")) {
            throw new IllegalArgumentException("allow-credentials: true cannot go with allowed-origins '*' (browsers "
                    + "refuse it); list the origins");
        }
        List<String> methods = a.methods("allowed-methods", List.of("GET", "HEAD", "POST"));
        if (methods.contains("*")) {
            methods = List.of("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS");
        }
        List<String> headers = a.headerNames("allowed-headers", List.of());
        List<String> exposed = a.headerNames("exposed-headers", List.of());
        return new CorsFilter(origins, methods, headers, exposed, credentials,
                a.duration("max-age", Duration.ofMinutes(30)));
    }

    /** {@code https://*.example.com} matches one or more subdomain labels; everything else literally, any case. */
    private static Pattern originPattern(String origin) {
        String[] parts = origin.split("\\*", -1);
        List<String> quoted = new ArrayList<>();
        for (String p : parts) {
            quoted.add(Pattern.quote(p));
        }
        return Pattern.compile(String.join("[a-zA-Z0-9.-]+", quoted), Pattern.CASE_INSENSITIVE);
    }

    @Override
    public void filter(FilterExchange exchange, FilterChain chain) throws IOException {
        Headers req = exchange.request().headers();
        String origin = req.count("Origin") == 1 ? req.first("Origin").trim() : null;
        if (origin != null && exchange.request().method().equals("OPTIONS")
                && req.contains("Access-Control-Request-Method")) {
            preflight(exchange, origin);
            return;
        }
        chain.proceed(exchange);
        ResponseHead response = exchange.response();
        if (response == null) {
            return;
        }
        Headers h = response.headers();
        ORIGIN_FIELDS.forEach(h::remove);
        addVary(h, "Origin");
        if (origin != null && allows(origin)) {
            allowOrigin(h, origin);
            if (exposed != null) {
                h.set("Access-Control-Expose-Headers", exposed);
            }
        }
    }

    private void preflight(FilterExchange exchange, String origin) {
        Headers req = exchange.request().headers();
        String method = req.first("Access-Control-Request-Method").trim();
        List<String> asked = new ArrayList<>();
        for (String v : req.all("Access-Control-Request-Headers")) {
            for (String name : v.split(",")) {
                if (!name.isBlank()) {
                    asked.add(name.trim().toLowerCase(Locale.ROOT));
                }
            }
        }
        String refusal = !allows(origin) ? "origin " + origin + " is not allowed"
                : !methods.contains(method) ? "method " + method + " is not allowed"
                : !anyHeader && !headers.containsAll(asked) ? "a requested header is not allowed" : null;
        ResponseHead head = ResponseHead.of(refusal == null ? 204 : 403);
        Headers h = head.headers();
        addVary(h, "Origin");
        addVary(h, "Access-Control-Request-Method");
        addVary(h, "Access-Control-Request-Headers");
        if (refusal != null) {
            h.set("Content-Type", "text/plain; charset=utf-8");
            exchange.replyLocally(head, ("403 Forbidden: CORS preflight refused: " + refusal + "\n")
                    .getBytes(java.nio.charset.StandardCharsets.UTF_8));
            return;
        }
        allowOrigin(h, origin);
        h.set("Access-Control-Allow-Methods", methodList);
        if (!asked.isEmpty()) {
            h.set("Access-Control-Allow-Headers", String.join(", ", asked));
        }
        h.set("Access-Control-Max-Age", Long.toString(maxAgeSeconds));
        exchange.replyLocally(head, new byte[0]);
    }

    private boolean allows(String origin) {
        if (anyOrigin) {
            return true;
        }
        for (Pattern p : origins) {
            if (p.matcher(origin).matches()) {
                return true;
            }
        }
        return false;
    }

    private void allowOrigin(Headers h, String origin) {
        h.set("Access-Control-Allow-Origin", anyOrigin && !credentials ? "*" : origin);
        if (credentials) {
            h.set("Access-Control-Allow-Credentials", "true");
        }
    }

    private static void addVary(Headers h, String name) {
        for (String v : h.all("Vary")) {
            for (String item : v.split(",")) {
                if (item.trim().equalsIgnoreCase(name) || item.trim().equals("*")) {
                    return;
                }
            }
        }
        h.add("Vary", name);
    }
}
