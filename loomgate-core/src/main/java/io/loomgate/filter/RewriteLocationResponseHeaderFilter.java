package io.loomgate.filter;

import io.loomgate.extension.ArgumentException;
import io.loomgate.http.ResponseHead;
import java.io.IOException;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * Spring Cloud Gateway's {@code RewriteLocationResponseHeader=AS_IN_REQUEST, Location, ,}: in the origin's
 * {@code Location} (or {@code locationHeaderName}), the {@code host:port} after a scheme matching {@code protocols}
 * (default {@code https?|ftps?}) becomes the client's {@code Host} (or {@code hostValue}), so a client is not sent to
 * the origin's own name. {@code stripVersion} also drops a {@code /v1}-style first segment: {@code AS_IN_REQUEST}
 * (default) when the request's path had none, {@code ALWAYS_STRIP}, or {@code NEVER_STRIP}. The patterns are SCG's;
 * the scheme is never changed. Host and path are the request's as this filter saw it, before later filters.
 */
record RewriteLocationResponseHeaderFilter(String stripVersion, String headerName, String hostValue,
                                           Pattern hostPort, Pattern hostPortVersion) implements GatewayFilter {
    static final FilterFactory FACTORY = new BuiltinFilterFactory("RewriteLocationResponseHeader",
            List.of("stripVersion", "locationHeaderName", "hostValue", "protocols"),
            args -> {
                String protocols = args.optionalRegex("protocols") == null ? "https?|ftps?"
                        : args.required("protocols");
                String host = args.optional("hostValue", null);
                return new RewriteLocationResponseHeaderFilter(
                        stripVersion(args.optional("stripVersion", "AS_IN_REQUEST")),
                        HeaderFields.name("locationHeaderName", args.optional("locationHeaderName", "Location")),
                        host == null ? null : HeaderFields.value("hostValue", host),
                        afterScheme(protocols, "(?=/)"), afterScheme(protocols, "(?:/v\\d+)?(?=/)"));
            });
    private static final Pattern VERSIONED_PATH = Pattern.compile("^/v\\d+/.*");

    /** SCG's pattern: the host:port right after {@code protocols://}, then {@code rest}. */
    private static Pattern afterScheme(String protocols, String rest) {
        try {
            return Pattern.compile("(?<=^(?:" + protocols + ")://)[^:/]+(?::\\d+)?" + rest);
        } catch (PatternSyntaxException e) {
            throw new ArgumentException("protocols", "protocols: '" + protocols + "' cannot be used as the scheme "
                    + "before ://, which must have a bounded length (as https?|ftps?): " + e.getDescription());
        }
    }

    private static String stripVersion(String written) {
        String s = written.toUpperCase(Locale.ROOT);
        if (!List.of("NEVER_STRIP", "AS_IN_REQUEST", "ALWAYS_STRIP").contains(s)) {
            throw new ArgumentException("stripVersion", "stripVersion: expected NEVER_STRIP, AS_IN_REQUEST or "
                    + "ALWAYS_STRIP, got '" + written + "'");
        }
        return s;
    }

    @Override
    public void filter(FilterExchange exchange, FilterChain chain) throws IOException {
        String host = hostValue != null ? hostValue : exchange.request().headers().first("Host");
        boolean strip = stripVersion.equals("ALWAYS_STRIP") || stripVersion.equals("AS_IN_REQUEST")
                && !VERSIONED_PATH.matcher(exchange.request().path()).matches();
        chain.proceed(exchange);
        ResponseHead response = exchange.response();
        String location = response == null ? null : response.headers().first(headerName);
        if (location != null && host != null) {
            response.headers().set(headerName, (strip ? hostPortVersion : hostPort).matcher(location)
                    .replaceFirst(Matcher.quoteReplacement(host)));
        }
    }
}
