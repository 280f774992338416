package io.loomgate.observe;

import io.loomgate.http.Headers;
import io.loomgate.http.IpLiteral;
import io.loomgate.http.RequestHead;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Decides whether an admin request may be answered, before any endpoint runs. The admin listener holds the power to
 * reload the gateway and shows thread stacks and every upstream address, so:
 * <ul>
 *   <li>the Host must be an IP literal, {@code localhost}, the bind address or one of {@code admin.allowed-hosts}:
 *       a DNS-rebinding page reaches the listener under the attacker's own name, which is none of these;</li>
 *   <li>with {@code admin.auth-token} set, every request but the probes carries it, as {@code Authorization: Bearer}
 *       or as the password of {@code Basic} (so a browser's own prompt opens the dashboard); compared in constant
 *       time (SHA-256 of both sides, then {@link MessageDigest#isEqual}, so neither content nor length leaks);</li>
 *   <li>a POST must be {@code application/json} and, if the browser says where it comes from, same-origin: an HTML
 *       form or a {@code text/plain} fetch from another site (which a browser sends without asking) is refused, and
 *       a JSON one needs a CORS preflight this listener never grants.</li>
 * </ul>
 * The probes ({@code /health/live}, {@code /health/ready}) stay open: orchestrators call them without credentials and
 * they tell nothing.
 */
final class AdminGuard {
    /** A refusal: the status and the text the client gets. */
    record Refusal(int status, String text) {
    }

    private final byte[] tokenDigest;
    private final Set<String> hosts;

    /**
     * @param token        the token every request but the probes must carry, or null for none
     * @param bindAddress  the admin listener's bind address (a name there is accepted as Host)
     * @param allowedHosts further Host names to answer (lower case)
     */
    AdminGuard(String token, String bindAddress, List<String> allowedHosts) {
        this.tokenDigest = token == null ? null : sha256(token);
        Set<String> h = new HashSet<>(allowedHosts);
        h.add("localhost");
        if (bindAddress != null) {
            h.add(bindAddress.toLowerCase(Locale.ROOT));
        }
        this.hosts = Set.copyOf(h);
    }

    static boolean isProbe(String path) {
        return path.equals("/health/live") || path.equals("/health/ready");
    }

    /** Null when the request may be answered, else why not. */
    Refusal check(RequestHead request) {
        String path = request.path();
        if (isProbe(path)) {
            return null;
        }
        Headers h = request.headers();
        String host = h.first("Host");
        if (host == null || !hostAllowed(host)) {
            return new Refusal(421, "the admin listener does not answer for Host '" + (host == null ? "" : host)
                    + "'; add the name to admin.allowed-hosts or use an IP address\n");
        }
        if (tokenDigest != null && !authorized(h.first("Authorization"))) {
            return new Refusal(401, "the admin listener needs admin.auth-token: send Authorization: Bearer <token>\n");
        }
        if (request.method().equals("POST") && path.equals("/reload")) { // elsewhere a POST is answered 405
            String origin = h.first("Origin");
            if (origin != null && !sameOrigin(origin, host)) {
                return new Refusal(403, "cross-origin POST refused (Origin " + origin + ")\n");
            }
            String site = h.first("Sec-Fetch-Site");
            if (site != null && !site.equals("same-origin") && !site.equals("none")) {
                return new Refusal(403, "cross-site POST refused (Sec-Fetch-Site " + site + ")\n");
            }
            String type = h.first("Content-Type");
            if (type == null || !mediaType(type).equals("application/json")) {
                return new Refusal(415, "a POST to the admin listener must be Content-Type: application/json, got "
                        + (type == null ? "none" : type) + "\n");
            }
        }
        return null;
    }

    /** The WWW-Authenticate challenges of a 401: Basic first, so a browser prompts for the token. */
    static List<String> challenges() {
        return List.of("Basic realm=\"loomgate admin\", charset=\"UTF-8\"", "Bearer realm=\"loomgate admin\"");
    }

    boolean hostAllowed(String hostHeader) {
        if (IpLiteral.parse(hostHeader) != null) {
            return true;
        }
        String name = hostHeader.trim().toLowerCase(Locale.ROOT);
        int colon = name.lastIndexOf(':');
        if (colon >= 0) {
            name = name.substring(0, colon);
        }
        if (name.endsWith(".")) {
            name = name.substring(0, name.length() - 1);
        }
        return hosts.contains(name);
    }

    private boolean authorized(String authorization) {
        if (authorization == null) {
            return false;
        }
        String a = authorization.trim();
        String presented = null;
        if (a.regionMatches(true, 0, "Bearer ", 0, 7)) {
            presented = a.substring(7).trim();
        } else if (a.regionMatches(true, 0, "Basic ", 0, 6)) {
            try {
                String userPass = new String(Base64.getDecoder().decode(a.substring(6).trim()),
                        StandardCharsets.UTF_8);
                int colon = userPass.indexOf(':');
                presented = colon < 0 ? null : userPass.substring(colon + 1);
            } catch (IllegalArgumentException e) {
                return false;
            }
        }
        return presented != null && MessageDigest.isEqual(tokenDigest, sha256(presented));
    }

    /** An Origin of {@code scheme://host[:port]} naming the Host the request was sent to. */
    private static boolean sameOrigin(String origin, String host) {
        int scheme = origin.indexOf("://");
        return scheme > 0 && origin.substring(scheme + 3).equalsIgnoreCase(host.trim());
    }

    private static String mediaType(String contentType) {
        int semi = contentType.indexOf(';');
        return (semi < 0 ? contentType : contentType.substring(0, semi)).trim().toLowerCase(Locale.ROOT);
    }

    private static byte[] sha256(String s) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }
}
