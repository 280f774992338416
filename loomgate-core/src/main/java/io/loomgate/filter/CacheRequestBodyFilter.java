package io.loomgate.filter;

import io.loomgate.extension.ArgumentException;
import io.loomgate.extension.ExtensionArgs;
import io.loomgate.http.ResponseHead;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Spring Cloud Gateway's {@code CacheRequestBody} (argument {@code bodyClass}): reads the route's request body whole,
 * up to {@code max-size}, before the upstream is called ({@link FilterExchange#cacheRequestBody}). The origin then
 * gets it with a Content-Length rather than chunked, every {@code Retry} and a breaker's fallback send it again
 * whatever {@code max-replay-size} says, and a body over the bound is answered 413 (at once when its Content-Length
 * says so). As in SCG the body is put in the exchange attribute {@link #ATTRIBUTE}, as the {@code bodyClass} asks,
 * for the filters after it (a registered {@link FilterFactory}'s).
 *
 * <p>SCG converts the body with Spring's codecs into any class; here only the classes that are the bytes themselves
 * are accepted ({@link #BODY_CLASSES}); one that needs Java code to build (a POJO from JSON, a form's
 * MultiValueMap) is refused at load. A String is decoded as UTF-8 (SCG's default charset).
 */
final class CacheRequestBodyFilter implements GatewayFilter {
    static final FilterFactory FACTORY = new BuiltinFilterFactory("CacheRequestBody", List.of("bodyClass",
            "max-size"), CacheRequestBodyFilter::create);
    /** SCG's {@code ServerWebExchangeUtils.CACHED_REQUEST_BODY_ATTR}. */
    public static final String ATTRIBUTE = "cachedRequestBodyObject";
    /** SCG's bound on a body read into memory ({@code spring.codec.max-in-memory-size}'s default, 256KB). */
    static final long DEFAULT_MAX_SIZE = 256L * 1024;
    /** The largest bound a Java array can hold. */
    private static final long MAX_MAX_SIZE = Integer.MAX_VALUE - 8;
    /** The bodyClass names accepted, and what each keeps in the attribute. */
    private static final Map<String, Function<byte[], Object>> BODY_CLASSES = Map.of(
            "java.lang.String", b -> new String(b, StandardCharsets.UTF_8),
            "String", b -> new String(b, StandardCharsets.UTF_8),
            "byte[]", b -> b,
            "[B", b -> b,
            "java.nio.ByteBuffer", b -> ByteBuffer.wrap(b).asReadOnlyBuffer(),
            // SCG's own buffer type: no Spring here, so its bytes
            "org.springframework.core.io.buffer.DataBuffer", b -> b);

    private final long maxSize;
    private final Function<byte[], Object> convert;

    CacheRequestBodyFilter(long maxSize, Function<byte[], Object> convert) {
        this.maxSize = maxSize;
        this.convert = convert;
    }

    private static GatewayFilter create(ExtensionArgs a) {
        String bodyClass = a.optional("bodyClass", "byte[]").trim();
        Function<byte[], Object> convert = BODY_CLASSES.get(bodyClass);
        if (convert == null) {
            throw new ArgumentException("bodyClass", "bodyClass: '" + bodyClass + "' needs Java code to convert the "
                    + "body into it (ReadBody-style); Loomgate keeps the body as java.lang.String or byte[] "
                    + "(java.nio.ByteBuffer, org.springframework.core.io.buffer.DataBuffer as its bytes)");
        }
        long maxSize = a.size("max-size", DEFAULT_MAX_SIZE);
        if (maxSize < 0 || maxSize > MAX_MAX_SIZE) {
            throw new ArgumentException("max-size", "max-size: expected a size from 0 to 2GB, got " + maxSize);
        }
        return new CacheRequestBodyFilter(maxSize, convert);
    }

    @Override
    public void filter(FilterExchange exchange, FilterChain chain) throws IOException {
        String length = exchange.request().headers().first("Content-Length");
        if (length != null && declared(length) > maxSize) {
            // Answered before a byte of the body is read, as RequestSize does: the server then ends the unread body
            // its protocol's way (HTTP/1.1 closes the connection, HTTP/2 resets only the stream).
            ResponseHead head = ResponseHead.of(413);
            head.headers().set("Content-Type", "text/plain; charset=utf-8");
            exchange.replyLocally(head, ("413 Payload Too Large: the request body is " + length.trim() + " bytes, "
                    + "over this route's limit of " + maxSize + "\n").getBytes(StandardCharsets.UTF_8));
            return;
        }
        if (!exchange.attributes().containsKey(ATTRIBUTE)) { // SCG: a body cached already is not read again
            exchange.attributes().put(ATTRIBUTE, convert.apply(exchange.cacheRequestBody(maxSize)));
        }
        chain.proceed(exchange);
    }

    /** The codec has checked Content-Length already; anything unreadable here is left to the read's own bound. */
    private static long declared(String value) {
        try {
            return Long.parseLong(value.trim());
        } catch (NumberFormatException e) {
            return -1;
        }
    }
}
