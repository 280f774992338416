package io.loomgate.http2;

import io.loomgate.http.Headers;
import io.loomgate.http.HostSyntax;
import io.loomgate.http.RequestHead;
import io.loomgate.http.RequestTargetChars;
import io.loomgate.http.Tokens;

/**
 * Turns one decoded request header block into the same {@link RequestHead} the HTTP/1.1 side makes, refusing what
 * RFC 9113 §8.2-§8.3 calls malformed (a stream error, PROTOCOL_ERROR): upper-case or invalid names, CR/LF/NUL or
 * surrounding whitespace in values, unknown, repeated, misplaced or missing pseudo-fields, connection-specific fields
 * (Connection, Keep-Alive, Proxy-Connection, Transfer-Encoding, Upgrade), TE other than "trailers", and a
 * {@code :path} with a character HTTP/1.1's request line refuses ({@link RequestTargetChars}: SP, HTAB, controls, DEL,
 * raw non-ASCII), and an {@code :authority} (or, without one, a Host field) HTTP/1.1's Host rule refuses
 * ({@link HostSyntax}). {@code :authority} becomes Host; several {@code cookie} fields are joined with "; " (§8.2.3).
 *
 * <p>A sink for the decoder: it collects while the block is decoded (which must run to the end whatever it finds,
 * to keep HPACK state in step) and says what was wrong afterwards.
 */
final class RequestFields implements HpackDecoder.FieldSink {
    static final String VERSION = "HTTP/2.0";
    private static final boolean[] TOKEN = new boolean[128];

    static {
        for (char c = '0'; c <= '9'; c++) {
            TOKEN[c] = true;
        }
        for (char c = 'a'; c <= 'z'; c++) {
            TOKEN[c] = true;
        }
        for (char c : "!#$%&'*+-.^_`|~".toCharArray()) {
            TOKEN[c] = true;
        }
    }

    private final boolean trailers;
    private final Headers headers;
    private String method;
    private String scheme;
    private String authority;
    private String path;
    private StringBuilder cookies;
    private boolean regularSeen;
    private String problem;

    /**
     * @param blockFields the block's field count, pseudo-fields included: of a request's four, only :authority
     *                    stays (as Host), so the list needs three fewer, plus {@link RequestHead#PROXY_ROOM}
     */
    RequestFields(boolean trailers, int blockFields) {
        this.trailers = trailers;
        this.headers = new Headers(trailers ? blockFields : Math.max(blockFields - 3, 0) + RequestHead.PROXY_ROOM);
    }

    @Override
    public void field(String name, String value) {
        if (problem != null) {
            return;
        }
        if (!validValue(value)) {
            problem = "invalid characters in the value of '" + name + "'";
            return;
        }
        if (!name.isEmpty() && name.charAt(0) == ':') {
            pseudo(name, value);
            return;
        }
        regularSeen = true;
        if (!validName(name)) {
            problem = "invalid field name '" + name + "' (names are lower-case tokens in HTTP/2)";
            return;
        }
        switch (name) {
            case "connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade" ->
                    problem = "connection-specific field '" + name + "' (RFC 9113 §8.2.2)";
            case "te" -> {
                if (!value.equals("trailers")) {
                    problem = "TE other than 'trailers' (RFC 9113 §8.2.2)";
                } else {
                    headers.add(name, value);
                }
            }
            case "cookie" -> {
                if (cookies == null) {
                    cookies = new StringBuilder(value);
                } else {
                    cookies.append("; ").append(value);
                }
            }
            default -> headers.add(name, value);
        }
    }

    private void pseudo(String name, String value) {
        if (trailers) {
            problem = "pseudo-field '" + name + "' in trailers (RFC 9113 §8.1)";
            return;
        }
        if (regularSeen) {
            problem = "pseudo-field '" + name + "' after a regular field (RFC 9113 §8.3)";
            return;
        }
        switch (name) {
            case ":method" -> method = once(name, method, value);
            case ":scheme" -> scheme = once(name, scheme, value);
            case ":authority" -> {
                if (authority == null) {
                    // Host first, where an HTTP/1.1 request carries it: no regular field has come yet (above).
                    headers.add("host", value);
                }
                authority = once(name, authority, value);
            }
            case ":path" -> path = once(name, path, value);
            default -> problem = "unknown pseudo-field '" + name + "' in a request (RFC 9113 §8.3)";
        }
    }

    private String once(String name, String before, String value) {
        if (before != null) {
            problem = "repeated pseudo-field '" + name + "' (RFC 9113 §8.3.1)";
        }
        return value;
    }

    static boolean validName(String name) {
        if (name.isEmpty()) {
            return false;
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (c >= 128 || !TOKEN[c]) {
                return false;
            }
        }
        return true;
    }

    static boolean validValue(String v) {
        for (int i = 0; i < v.length(); i++) {
            char c = v.charAt(i);
            if (c == 0 || c == '\r' || c == '\n') {
                return false;
            }
        }
        return v.isEmpty() || !(isWhitespace(v.charAt(0)) || isWhitespace(v.charAt(v.length() - 1)));
    }

    private static boolean isWhitespace(char c) {
        return c == ' ' || c == '\t';
    }

    /** The request, or a stream error naming what was malformed. */
    RequestHead toRequest(int streamId) throws Http2Exception {
        if (problem == null) {
            if (method == null) {
                problem = "no :method (RFC 9113 §8.3.1)";
            } else if (method.equals("CONNECT")) {
                if (authority == null || scheme != null || path != null) {
                    problem = "CONNECT needs :authority and no :scheme or :path (RFC 9113 §8.5)";
                }
            } else if (scheme == null || path == null) {
                problem = "no " + (scheme == null ? ":scheme" : ":path") + " (RFC 9113 §8.3.1)";
            } else if (path.isEmpty() || !(path.charAt(0) == '/' || path.equals("*") && method.equals("OPTIONS"))) {
                problem = "invalid :path '" + path + "' (RFC 9113 §8.3.1)";
            } else if (RequestTargetChars.firstRefused(path) >= 0) {
                // The request line's rule (RFC 9112 §3.2), so HTTP/2 forwards no target HTTP/1.1 would refuse.
                problem = RequestTargetChars.describe(path.charAt(RequestTargetChars.firstRefused(path)))
                        + " in :path (RFC 9112 §3.2)";
            } else if (!Tokens.isToken(method)) { // any case: a method is no field name (no lower-cased copy)
                problem = "invalid :method";
            }
        }
        if (problem == null && authority != null) {
            // Field 0 is the host that :authority made; a Host field the client sent as well comes later.
            int sent = headers.indexOf("host", 1);
            if (sent >= 0 && !headers.value(sent).equalsIgnoreCase(authority)) {
                problem = "Host differs from :authority (RFC 9113 §8.3.1)";
            } else if (authority.isEmpty() || authority.indexOf('@') >= 0
                    || !HostSyntax.isValid(authority, method.equals("CONNECT"))) {
                // HTTP/1.1's Host rule (HostSyntax), so HTTP/2 passes on no host HTTP/1.1 would refuse.
                problem = "invalid :authority (RFC 9113 §8.3.1, RFC 3986 §3.2)";
            } else {
                for (; sent >= 0; sent = headers.indexOf("host", sent)) {
                    headers.removeAt(sent);
                }
                return finish(streamId, headers, method.equals("CONNECT") ? authority : path);
            }
        }
        if (problem == null) {
            // No :authority: a Host field stands in for it, under HTTP/1.1's rule (one, and valid).
            int host = headers.indexOf("host", 0);
            if (host >= 0 && (headers.indexOf("host", host + 1) >= 0
                    || !HostSyntax.isValid(headers.value(host), false))) {
                problem = "repeated or invalid Host (RFC 9112 §3.2)";
            }
        }
        return finish(streamId, headers, path);
    }

    private RequestHead finish(int streamId, Headers h, String target) throws Http2Exception {
        if (problem != null) {
            throw Http2Exception.stream(streamId, Frames.PROTOCOL_ERROR, problem);
        }
        if (cookies != null) {
            h.add("cookie", cookies.toString());
        }
        return new RequestHead(method, target, VERSION, h);
    }

    /** The trailer fields, or a stream error. */
    Headers toTrailers(int streamId) throws Http2Exception {
        if (problem != null) {
            throw Http2Exception.stream(streamId, Frames.PROTOCOL_ERROR, problem);
        }
        if (cookies != null) {
            headers.add("cookie", cookies.toString());
        }
        return headers;
    }
}
