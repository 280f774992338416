package io.loomgate.http2;

/**
 * Field names lower-cased for HTTP/2 (RFC 9113 §8.2.1), without a new string for the names messages usually carry:
 * an HTTP/1.1 origin writes {@code Content-Type}, an HTTP/1.1 client {@code User-Agent}, the proxy itself adds
 * {@code X-Forwarded-For}, and lower-casing them for every message was a copy per field. A name in the table (HPACK's
 * static names and a few more) comes back as the table's own lower-case string ({@link #known}); the encoder writes
 * any other name with an upper-case letter lower-cased as it goes ({@link HpackEncoder#fieldLowerCasing}), so no
 * string is made for it either. ASCII only: names are tokens.
 *
 * <p>Every connection-specific name the blocks drop (RFC 9113 §8.2.2: {@code connection}, {@code keep-alive},
 * {@code proxy-connection}, {@code transfer-encoding}, {@code upgrade}, {@code te}, {@code http2-settings}, and
 * {@code host} on requests) is in the table, so a name {@link #known} does not know is none of them.
 */
final class LowerCaseNames {
    private static final String[] EXTRA = {
            "x-request-id", "x-correlation-id", "traceparent", "tracestate", "x-content-type-options",
            "x-frame-options", "x-xss-protection", "content-security-policy", "referrer-policy",
            "access-control-allow-credentials", "access-control-allow-headers", "access-control-allow-methods",
            "access-control-expose-headers", "access-control-max-age", "x-ratelimit-limit", "x-ratelimit-remaining",
            "x-ratelimit-reset", "grpc-status", "grpc-message", "grpc-encoding", "grpc-accept-encoding", "keep-alive",
            "connection", "proxy-connection", "upgrade", "te", "x-forwarded-for", "x-forwarded-proto",
            "x-forwarded-host", "forwarded", "alt-svc", "server-timing", "timing-allow-origin",
            // request names: the proxy's own, HTTP/1.1 clients' usual ones, and the last connection-specific one
            "x-forwarded-port", "x-forwarded-client-cert", "x-real-ip", "origin", "pragma", "priority",
            "sec-fetch-mode", "sec-fetch-site", "sec-fetch-dest", "sec-fetch-user", "upgrade-insecure-requests",
            "x-requested-with", "trailer", "grpc-timeout", "http2-settings",
    };
    /** Open addressing by {@link #hash}; a power of two at least four times the names. */
    private static final String[] TABLE = new String[512];

    static {
        for (int i = 1; i <= StaticTable.SIZE; i++) {
            put(StaticTable.name(i));
        }
        for (String name : EXTRA) {
            put(name);
        }
    }

    private LowerCaseNames() {
    }

    private static void put(String lower) {
        int mask = TABLE.length - 1;
        for (int i = hash(lower) & mask; ; i = (i + 1) & mask) {
            if (TABLE[i] == null) {
                TABLE[i] = lower;
                return;
            }
            if (TABLE[i].equals(lower)) {
                return;
            }
        }
    }

    /**
     * {@code name} in lower case without making a string: itself when it has no upper-case letter, the table's string
     * when the table holds it; null for any other name (one the encoder lower-cases as it writes it).
     */
    static String known(String name) {
        int i = 0;
        while (i < name.length() && !isUpper(name.charAt(i))) {
            i++;
        }
        if (i == name.length()) {
            return name;
        }
        int mask = TABLE.length - 1;
        for (int k = hash(name) & mask; TABLE[k] != null; k = (k + 1) & mask) {
            if (equalsLowerCase(TABLE[k], name)) {
                return TABLE[k];
            }
        }
        return null;
    }

    private static boolean isUpper(char c) {
        return c >= 'A' && c <= 'Z';
    }

    static char lower(char c) {
        return isUpper(c) ? (char) (c + ('a' - 'A')) : c;
    }

    /** A hash that ignores ASCII case. */
    private static int hash(String s) {
        int h = 0;
        for (int i = 0; i < s.length(); i++) {
            h = 31 * h + lower(s.charAt(i));
        }
        return h ^ (h >>> 9);
    }

    private static boolean equalsLowerCase(String lower, String name) {
        if (lower.length() != name.length()) {
            return false;
        }
        for (int i = 0; i < lower.length(); i++) {
            if (lower.charAt(i) != lower(name.charAt(i))) {
                return false;
            }
        }
        return true;
    }
}
