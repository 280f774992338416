package io.loomgate.http1;

import io.loomgate.http.Headers;
import java.util.Locale;
import java.util.Set;

/**
 * The fields that must not travel in a trailer section (RFC 9110 §6.5.1): those a recipient needs before the content
 * to frame, route, authenticate or interpret the message, and the connection-specific ones. A recipient that merged
 * them into the head (some do, §6.5.1 allows it for known-safe fields only) could be made to re-frame the next
 * message, reroute it or trust a forged credential, so a sender that is not sure they are allowed must not send them.
 * The list is Go net/http's {@code badTrailer} plus {@code Upgrade}, {@code Cookie} and {@code Set-Cookie}.
 */
final class TrailerFields {
    private static final Set<String> FORBIDDEN = Set.of("authorization", "cache-control", "connection",
            "content-encoding", "content-length", "content-range", "content-type", "cookie", "expect", "host",
            "keep-alive", "max-forwards", "pragma", "proxy-authenticate", "proxy-authorization", "proxy-connection",
            "range", "realm", "set-cookie", "te", "trailer", "transfer-encoding", "upgrade", "www-authenticate");

    private TrailerFields() {
    }

    static boolean isForbidden(String name) {
        return FORBIDDEN.contains(name.toLowerCase(Locale.ROOT));
    }

    /** These trailers without the forbidden fields: the same object when none is there, else a copy. */
    static Headers allowed(Headers trailers) {
        int i = 0;
        int n = trailers.size();
        while (i < n && !isForbidden(trailers.name(i))) {
            i++;
        }
        if (i == n) {
            return trailers;
        }
        Headers kept = new Headers(n);
        for (int j = 0; j < n; j++) {
            if (!isForbidden(trailers.name(j))) {
                kept.add(trailers.name(j), trailers.value(j));
            }
        }
        return kept;
    }
}
