package io.loomgate.proxy;

import io.loomgate.http.Headers;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Removes the fields that describe one connection rather than the message (RFC 9110 §7.6.1): Connection and every
 * field it names, Keep-Alive, Proxy-Connection, TE, Trailer, Upgrade and Transfer-Encoding (bodies are reframed on
 * each side). Content-Length is left to the caller, which knows the framing it will use.
 *
 * <p>Connection cannot name Host or the forwarding fields ({@link #IMMUNE}): a client listing them would otherwise
 * remove the Host a {@code preserve-host} route forwards, the chain a trusted proxy before us wrote, or the
 * X-Forwarded-Client-Cert the gateway set (written before this runs, ahead of routing).
 */
final class HopByHop {
    /** The names removed whatever Connection says (matched by {@link #isFixed}, which must list the same). */
    static final List<String> FIXED = List.of("Keep-Alive", "Proxy-Connection", "TE", "Trailer", "Upgrade",
            "Transfer-Encoding");
    /** End-to-end by definition; a Connection token naming one of these is ignored. */
    static final Set<String> IMMUNE = Set.of("host", "x-forwarded-for", "x-forwarded-host", "x-forwarded-proto",
            "x-forwarded-port", "forwarded", "via", "x-forwarded-client-cert");

    private HopByHop() {
    }

    static void strip(Headers h) {
        // Tokens named by Connection go first, while Connection is still there to name them.
        for (int i = h.indexOf("Connection", 0); i >= 0; i = h.indexOf("Connection", i + 1)) {
            String list = h.value(i);
            int start = 0;
            while (start <= list.length()) {
                int comma = list.indexOf(',', start);
                int end = comma < 0 ? list.length() : comma;
                String token = list.substring(start, end).trim();
                if (!token.isEmpty() && !token.equalsIgnoreCase("Connection")
                        && !IMMUNE.contains(token.toLowerCase(Locale.ROOT))) {
                    h.remove(token);
                }
                start = end + 1;
            }
        }
        // Then Connection and the fixed names in one pass (a remove per name was seven passes over every field, twice
        // per request: about 1% of HTTP/2's /hello CPU), from the end so that a removal moves nothing still to see.
        for (int i = h.size() - 1; i >= 0; i--) {
            if (isFixed(h.name(i))) {
                h.removeAt(i);
            }
        }
    }

    /** Whether this name is Connection or one of {@link #FIXED}, ignoring case; the length rules most out at once. */
    static boolean isFixed(String name) {
        return switch (name.length()) {
            case 2 -> name.equalsIgnoreCase("TE");
            case 7 -> name.equalsIgnoreCase("Trailer") || name.equalsIgnoreCase("Upgrade");
            case 10 -> name.equalsIgnoreCase("Keep-Alive") || name.equalsIgnoreCase("Connection");
            case 16 -> name.equalsIgnoreCase("Proxy-Connection");
            case 17 -> name.equalsIgnoreCase("Transfer-Encoding");
            default -> false;
        };
    }
}
