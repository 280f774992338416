package io.loomgate.security;

import io.loomgate.extension.ExtensionArgs;
import io.loomgate.filter.BuiltinFilterFactory;
import io.loomgate.filter.FilterChain;
import io.loomgate.filter.FilterExchange;
import io.loomgate.filter.FilterFactory;
import io.loomgate.filter.GatewayFilter;
import java.io.IOException;
import java.util.List;
import java.util.Locale;

/**
 * Refuses request bodies over {@code maxSize} (Spring Cloud Gateway's {@code RequestSize}, default 5MB). A
 * Content-Length over it is answered 413 at once, before a byte of the body is read (a client that sent
 * {@code Expect: 100-continue} never sends it). A body without a length (chunked) is capped while it is relayed
 * ({@link FilterExchange#limitRequestBody}): once it passes the limit the client gets 413 and its connection is
 * closed, and the origin's connection is dropped before the body's end, so the origin never takes a cut body for a
 * whole one.
 */
final class RequestSizeFilter implements GatewayFilter {
    static final FilterFactory FACTORY = new BuiltinFilterFactory("RequestSize", List.of("maxSize"),
            RequestSizeFilter::create);
    static final long DEFAULT_MAX = 5L * 1024 * 1024;

    private final long maxBytes;

    RequestSizeFilter(long maxBytes) {
        this.maxBytes = maxBytes;
    }

    private static GatewayFilter create(ExtensionArgs a) {
        return new RequestSizeFilter(a.size("maxSize", DEFAULT_MAX));
    }

    @Override
    public void filter(FilterExchange exchange, FilterChain chain) throws IOException {
        String length = exchange.request().headers().first("Content-Length");
        long declared = length == null ? -1 : parse(length);
        if (declared > maxBytes) {
            // Spring Cloud Gateway's errorMessage field, so clients written against it read the same thing.
            SecurityReplies.reply(exchange, 413, "the request body is " + declared + " bytes, over this route's "
                    + "limit of " + maxBytes, "errorMessage", "Request size is larger than permissible limit. "
                    + "Request size is " + readable(declared) + " where permissible limit is " + readable(maxBytes));
            return;
        }
        if (declared < 0) {
            exchange.limitRequestBody(maxBytes);
        }
        chain.proceed(exchange);
    }

    /** The codec has checked Content-Length already; anything unreadable here is treated as unknown and capped. */
    private static long parse(String value) {
        try {
            return Long.parseLong(value.trim());
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    private static String readable(long bytes) {
        if (bytes >= 1024 * 1024) {
            return String.format(Locale.ROOT, "%.1f MB", bytes / (1024.0 * 1024));
        }
        if (bytes >= 1024) {
            return String.format(Locale.ROOT, "%.1f KB", bytes / 1024.0);
        }
        return bytes + " B";
    }
}
