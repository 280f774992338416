package io.loomgate.security;

import io.loomgate.extension.ArgumentException;
import io.loomgate.extension.ExtensionArgs;
import io.loomgate.filter.BuiltinFilterFactory;
import io.loomgate.filter.FilterChain;
import io.loomgate.filter.FilterExchange;
import io.loomgate.filter.FilterFactory;
import io.loomgate.filter.GatewayFilter;
import io.loomgate.http.Headers;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Spring Cloud Gateway's {@code RequestHeaderSize=1000B}: a request with a header whose name and values together
 * (every field of that name counted) are over {@code maxSize} is answered 431 without going upstream, the fields
 * named in the {@code errorHeaderName} response field ({@code errorMessage} by default) in SCG's words, so clients
 * written against SCG read the same thing. It bounds each header of one route; {@code server.max-header-size} bounds
 * the whole head of every request before any route is chosen.
 */
final class RequestHeaderSizeFilter implements GatewayFilter {
    static final FilterFactory FACTORY = new BuiltinFilterFactory("RequestHeaderSize",
            List.of("maxSize", "errorHeaderName"), RequestHeaderSizeFilter::create);
    /** SCG's default. */
    static final long DEFAULT_MAX = 16000;

    private final long maxBytes;
    private final String errorHeaderName;

    private RequestHeaderSizeFilter(long maxBytes, String errorHeaderName) {
        this.maxBytes = maxBytes;
        this.errorHeaderName = errorHeaderName;
    }

    private static GatewayFilter create(ExtensionArgs a) {
        long max = a.size("maxSize", DEFAULT_MAX);
        if (max < 1) {
            throw new ArgumentException("maxSize", "maxSize: must be at least 1B, got '" + a.required("maxSize")
                    + "'");
        }
        return new RequestHeaderSizeFilter(max, a.headerName("errorHeaderName", "errorMessage"));
    }

    @Override
    public void filter(FilterExchange exchange, FilterChain chain) throws IOException {
        Map<String, String> over = oversized(exchange.request().headers());
        if (!over.isEmpty()) {
            StringBuilder message = new StringBuilder("Request Header/s size is larger than permissible limit ("
                    + maxBytes + "B).");
            over.forEach((name, size) -> message.append(" Request Header/s size for '").append(name)
                    .append("' is ").append(size).append("B."));
            SecurityReplies.reply(exchange, 431, "request header(s) " + String.join(", ", over.keySet())
                    + " over this route's limit of " + maxBytes + " bytes", errorHeaderName, message.toString());
            return;
        }
        chain.proceed(exchange);
    }

    /** Each header (by name, case-insensitively, spelled as first seen) over the limit, with its size. */
    private Map<String, String> oversized(Headers headers) {
        Map<String, String> spelling = new LinkedHashMap<>();
        Map<String, Long> sizes = new LinkedHashMap<>();
        for (int i = 0; i < headers.size(); i++) {
            String key = headers.name(i).toLowerCase(Locale.ROOT);
            spelling.putIfAbsent(key, headers.name(i));
            long first = sizes.containsKey(key) ? 0 : bytes(headers.name(i));
            sizes.merge(key, first + bytes(headers.value(i)), Long::sum);
        }
        Map<String, String> over = new LinkedHashMap<>();
        sizes.forEach((key, size) -> {
            if (size > maxBytes) {
                over.put(spelling.get(key), Long.toString(size));
            }
        });
        return over;
    }

    /** Field text is held as ISO-8859-1, one char per byte on the wire. */
    private static long bytes(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1).length;
    }
}
