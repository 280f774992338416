package io.loomgate.filter;

import io.loomgate.extension.ArgumentException;
import io.loomgate.extension.ExtensionArgs;
import io.loomgate.http.Headers;
import io.loomgate.http.RequestHead;
import io.loomgate.http.ResponseHead;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.LongSupplier;

/**
 * Spring Cloud Gateway's {@code LocalResponseCache=timeToLive,size}: answers a bodiless GET from memory when the same
 * request (URI, Authorization, cookies and the fields the response's {@code Vary} names) got a 200, 206 or 301 within
 * the time-to-live, and the origin allowed it to be kept. The rules are SCG's (ResponseCacheManager): the request's
 * {@code Cache-Control: no-store} or {@code private} passes it by; the response's {@code no-store}, {@code private}
 * or {@code Vary: *} keeps it out; a request's {@code no-cache} goes to the origin and its answer is not stored;
 * {@code max-age} is rewritten to the seconds left and {@code Pragma}, {@code Expires} are dropped on what it serves.
 * Beyond SCG: a hit carries {@code Age}, {@code Range} is part of the key (SCG would answer a plain GET with a cached
 * 206), and a body of unknown end (HTTP/1 until close, which a cut connection cannot be told from) is not kept.
 *
 * <p>The body is kept as the proxy relays it ({@link FilterExchange#tapResponseBody}), never read ahead of the client;
 * past {@code max-entry-size} the copy is dropped and the response goes on uncached, and only a body that ended whole
 * and reached the client is stored. The filter reports each request's outcome in {@link #OUTCOME} and size evictions
 * in {@link #EVICTIONS}, which the metrics read.
 */
record LocalResponseCacheFilter(ResponseCache cache, long maxEntry, LongSupplier clock) implements GatewayFilter {
    static final FilterFactory FACTORY = new BuiltinFilterFactory("LocalResponseCache",
            List.of("timeToLive", "size", "max-entry-size"), LocalResponseCacheFilter::create);
    /** SCG's default time-to-live. */
    static final Duration DEFAULT_TIME_TO_LIVE = Duration.ofMinutes(5);
    /** SCG has no default size (unbounded); a gateway's memory must be bounded, so one is set. */
    static final long DEFAULT_SIZE = 64L * 1024 * 1024;
    /** The most one response may take, so many concurrent misses of large bodies cannot fill the heap. */
    static final long DEFAULT_MAX_ENTRY = 8L * 1024 * 1024;
    /** Exchange attribute: {@code hit}, {@code miss} or {@code revalidate} (a request's no-cache); unset: passed by. */
    public static final String OUTCOME = "loomgate.cache.outcome";
    /** Exchange attribute: how many entries storing this exchange's response pushed out (an Integer). */
    public static final String EVICTIONS = "loomgate.cache.evictions";
    private static final Set<Integer> STATUSES = Set.of(200, 206, 301);
    private static final List<String> FRAMING = List.of("Content-Length", "Transfer-Encoding", "Connection",
            "Keep-Alive", "Proxy-Connection", "Upgrade", "Trailer", "TE");

    private static GatewayFilter create(ExtensionArgs a) {
        Duration ttl = a.positiveDuration("timeToLive", DEFAULT_TIME_TO_LIVE);
        long size = a.size("size", DEFAULT_SIZE);
        if (size <= 0) {
            throw new ArgumentException("size", "size: expected a size above 0 like 500MB, got " + size);
        }
        long maxEntry = a.size("max-entry-size", Math.min(size, DEFAULT_MAX_ENTRY));
        if (maxEntry <= 0 || maxEntry > size) {
            throw new ArgumentException("max-entry-size", "max-entry-size: expected a size above 0 and at most "
                    + "size (" + size + " bytes), got " + maxEntry);
        }
        return new LocalResponseCacheFilter(new ResponseCache(size, ttl.toMillis()), maxEntry,
                System::currentTimeMillis);
    }

    @Override
    public void filter(FilterExchange exchange, FilterChain chain) throws IOException {
        RequestHead request = exchange.request();
        if (!cacheable(request)) {
            chain.proceed(exchange);
            return;
        }
        String base = baseKey(exchange);
        long now = clock.getAsLong();
        if (CacheControl.has(request.headers(), "no-cache")) {
            // SCG's default no-cache strategy (SKIP_UPDATE_CACHE_ENTRY): the origin answers, the entry stays as it is
            exchange.attributes().put(OUTCOME, "revalidate");
            chain.proceed(exchange);
            return;
        }
        List<String> vary = cache.varyNames(base, now);
        CachedResponse hit = vary == null ? null : cache.response(key(base, vary, request.headers()), now);
        if (hit != null) {
            exchange.attributes().put(OUTCOME, "hit");
            exchange.replyLocally(served(copy(hit.head()), hit.storedMillis(), now, true), hit.body());
            return;
        }
        exchange.attributes().put(OUTCOME, "miss");
        chain.proceed(exchange);
        ResponseHead response = exchange.response();
        if (response == null || !cacheable(response)) {
            return;
        }
        served(response, now, now, false);
        List<String> varyNames = varyNames(response.headers());
        ResponseHead kept = copy(response);
        exchange.tapResponseBody(new Filling(exchange, base, varyNames, key(base, varyNames, request.headers()), kept,
                now));
    }

    /** SCG's isRequestCacheable, HEAD aside: a GET without a body whose Cache-Control allows keeping. */
    private static boolean cacheable(RequestHead request) {
        Headers h = request.headers();
        String length = h.first("Content-Length");
        return request.method().equals("GET") && (length == null || length.trim().equals("0"))
                && !h.contains("Transfer-Encoding") && !CacheControl.has(h, "no-store")
                && !CacheControl.has(h, "private");
    }

    private static boolean cacheable(ResponseHead response) {
        Headers h = response.headers();
        boolean endKnown = !response.version().startsWith("HTTP/1") || h.contains("Content-Length")
                || h.hasToken("Transfer-Encoding", "chunked");
        return STATUSES.contains(response.status()) && endKnown && !CacheControl.has(h, "no-store")
                && !CacheControl.has(h, "private") && !varyNames(h).contains("*");
    }

    /** Pragma and Expires out, max-age the seconds left, and on a hit its Age: what a client is served. */
    private ResponseHead served(ResponseHead head, long storedMillis, long now, boolean hit) {
        Headers h = head.headers();
        h.remove("Pragma");
        h.remove("Expires");
        long ageMillis = Math.max(0, now - storedMillis);
        CacheControl.rewriteMaxAge(h, Math.max(0, (cache.timeToLiveMillis() - ageMillis) / 1000));
        if (hit) {
            h.set("Age", Long.toString(ageMillis / 1000));
        }
        return head;
    }

    private static List<String> varyNames(Headers h) {
        List<String> names = new ArrayList<>();
        for (String v : h.all("Vary")) {
            for (String part : v.split(",")) {
                String name = part.trim().toLowerCase(Locale.ROOT);
                if (!name.isEmpty() && !names.contains(name)) {
                    names.add(name);
                }
            }
        }
        names.sort(null);
        return names;
    }

    private static ResponseHead copy(ResponseHead head) {
        Headers h = head.headers().copy();
        FRAMING.forEach(h::remove);
        return new ResponseHead(head.version(), head.status(), head.reason(), h);
    }

    /**
     * SCG's key: the URI, Authorization and the cookies (and Range, see the class comment), hashed so credentials
     * are not kept as text.
     */
    private static String baseKey(FilterExchange exchange) {
        Headers h = exchange.request().headers();
        StringBuilder raw = new StringBuilder();
        raw.append(h.first("Host")).append(' ').append(exchange.originalTarget()).append('\n');
        raw.append("authorization=").append(String.join(",", h.all("Authorization"))).append('\n');
        List<String> cookies = new ArrayList<>();
        for (String v : h.all("Cookie")) {
            for (String c : v.split(";")) {
                cookies.add(c.trim());
            }
        }
        cookies.sort(null);
        raw.append("cookie=").append(String.join(";", cookies)).append('\n');
        raw.append("range=").append(String.join(",", h.all("Range")));
        return digest(raw.toString());
    }

    private static String key(String base, List<String> varyNames, Headers request) {
        if (varyNames.isEmpty()) {
            return base + "/";
        }
        StringBuilder raw = new StringBuilder(base);
        for (String name : varyNames) {
            List<String> values = new ArrayList<>(request.all(name));
            values.sort(null);
            raw.append('\n').append(name).append('=').append(String.join(",", values));
        }
        return base + "/" + digest(raw.toString());
    }

    private static String digest(String raw) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(raw.getBytes(StandardCharsets.UTF_8));
            return Base64.getEncoder().withoutPadding().encodeToString(d);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }

    /** Keeps the body as it is relayed, up to max-entry-size; stores it when the proxy says it ended whole. */
    private final class Filling implements ResponseBodyTap {
        private final FilterExchange exchange;
        private final String base;
        private final List<String> varyNames;
        private final String key;
        private final ResponseHead head;
        private final long storedMillis;
        private ByteArrayOutputStream body = new ByteArrayOutputStream();

        Filling(FilterExchange exchange, String base, List<String> varyNames, String key, ResponseHead head,
                long storedMillis) {
            this.exchange = exchange;
            this.base = base;
            this.varyNames = varyNames;
            this.key = key;
            this.head = head;
            this.storedMillis = storedMillis;
        }

        @Override
        public void bytes(byte[] b, int off, int len) {
            if (body == null) {
                return;
            }
            if (body.size() + (long) len > maxEntry) {
                body = null; // too large to keep: relayed on, not stored
                return;
            }
            body.write(b, off, len);
        }

        @Override
        public void completed() {
            if (body == null) {
                return;
            }
            int evicted = cache.put(base, varyNames, key, new CachedResponse(head, body.toByteArray(), storedMillis));
            body = null;
            if (evicted > 0) {
                exchange.attributes().merge(EVICTIONS, evicted, (a, b) -> (Integer) a + (Integer) b);
            }
        }
    }
}
