package io.loomgate.http1;

import static java.nio.charset.StandardCharsets.ISO_8859_1;

import io.loomgate.http.Headers;
import io.loomgate.http.HostSyntax;
import io.loomgate.http.HttpLimits;
import io.loomgate.http.HttpVersion;
import io.loomgate.http.Method;
import io.loomgate.http.RequestHead;
import io.loomgate.http.RequestTargetChars;
import java.io.EOFException;
import java.io.IOException;

/**
 * Parses a request head strictly (RFC 9112 §2-§5): anything two parsers could read differently is refused, never
 * repaired. Each rejection carries one status and names the rule it broke. Stateless.
 */
final class RequestHeadParser {

    /** RFC 9112 §2.2 asks servers to ignore "at least one" empty line before a request: a few, not endless ones. */
    static final int MAX_LEADING_EMPTY_LINES = 4;

    private static final AsciiInterner METHODS = new AsciiInterner(Method.GET, Method.HEAD, Method.POST, Method.PUT,
            Method.DELETE, Method.CONNECT, Method.OPTIONS, Method.TRACE, Method.PATCH);

    private RequestHeadParser() {
    }

    static RequestHead parse(HttpInput in, HttpLimits limits) throws IOException {
        int maxLine = limits.maxRequestLineBytes();
        int lf;
        int start;
        int end;
        int emptyLines = 0;
        while (true) {
            lf = in.nextLine(maxLine);
            if (lf == HttpInput.EOF) {
                if (in.buffered() == 0) {
                    return null;
                }
                throw new EOFException("stream ended inside the request line after " + in.buffered() + " bytes");
            }
            if (lf == HttpInput.TOO_LONG) {
                // RFC 9112 §3: a server receiving a request-target longer than it wishes to parse MUST respond 414.
                throw new HttpParseException(414, "request line longer than " + maxLine + " bytes");
            }
            start = in.position();
            end = FieldLines.contentEnd(in.buffer(), start, lf, 400);
            if (end > start) {
                break;
            }
            // RFC 9112 §2.2: a server SHOULD ignore at least one empty line received before the request-line.
            if (++emptyLines > MAX_LEADING_EMPTY_LINES) {
                throw new HttpParseException(400, "more than " + MAX_LEADING_EMPTY_LINES
                        + " empty lines before the request line (RFC 9112 §2.2)");
            }
            in.consumeTo(lf + 1);
        }
        byte[] b = in.buffer();

        // RFC 9112 §3: request-line = method SP request-target SP HTTP-version, exactly one SP each.
        boolean[] tchar = HttpChars.TCHAR;
        int i = start;
        while (i < end && tchar[b[i] & 0xff]) {
            i++;
        }
        if (i == end) {
            throw new HttpParseException(400, "request line has no request-target (RFC 9112 §3)");
        }
        if (b[i] != ' ' || i == start) {
            // RFC 9110 §9.1: method = token.
            throw new HttpParseException(400, HttpChars.describe(b[i])
                    + (i == start ? " at the start of the request line" : " in method") + " (RFC 9112 §3)");
        }
        String method = METHODS.intern(b, start, i);
        int targetStart = ++i;
        // RFC 9112 §3.2: the request-target is a URI form; whitespace, controls and non-ASCII bytes are not allowed
        // (the rule HTTP/2's :path shares).
        while (i < end && RequestTargetChars.isAllowed(b[i] & 0xff)) {
            i++;
        }
        if (i == targetStart) {
            throw new HttpParseException(400, i < end && b[i] == ' '
                    ? "more than one SP after the method (RFC 9112 §3)"
                    : "empty request-target (RFC 9112 §3)");
        }
        if (i == end) {
            // An HTTP/0.9 style "GET /" line: no version to answer in.
            throw new HttpParseException(400, "request line has no HTTP version (RFC 9112 §3)");
        }
        if (b[i] != ' ') {
            throw new HttpParseException(400, HttpChars.describe(b[i]) + " in request-target (RFC 9112 §3.2)");
        }
        int targetEnd = i;
        String version = version(b, i + 1, end);
        String target = new String(b, targetStart, targetEnd - targetStart, ISO_8859_1);
        checkTargetForm(method, target);
        in.consumeTo(lf + 1);

        Headers headers = FieldLines.sizedFor(in, RequestHead.PROXY_ROOM); // what the proxy adds on the way
        FieldLines.read(in, headers, limits.maxHeaderBytes(), limits.maxHeaderCount(), 400, 431, "header");
        checkHost(version, headers);
        return new RequestHead(method, target, version, headers);
    }

    /** RFC 9112 §2.3: HTTP-version = "HTTP/" DIGIT "." DIGIT, case-sensitive. We speak 1.0 and 1.1 only. */
    private static String version(byte[] b, int start, int end) throws HttpParseException {
        if (end - start == 8 && b[start] == 'H' && b[start + 1] == 'T' && b[start + 2] == 'T' && b[start + 3] == 'P'
                && b[start + 4] == '/' && b[start + 5] == '1' && b[start + 6] == '.') {
            if (b[start + 7] == '1') {
                return HttpVersion.HTTP_1_1;
            }
            if (b[start + 7] == '0') {
                return HttpVersion.HTTP_1_0;
            }
        }
        String text = new String(b, start, end - start, ISO_8859_1);
        if (looksLikeVersion(b, start, end)) {
            // RFC 9110 §15.6.6: 505 for a major version (or a minor version of 1) we do not support.
            throw new HttpParseException(505, "HTTP version " + text
                    + " is not supported; only HTTP/1.1 and HTTP/1.0 (RFC 9110 §15.6.6)");
        }
        if (text.indexOf('\r') >= 0) {
            // RFC 9112 §2.2: a CR not followed by LF cannot end a line.
            throw new HttpParseException(400, "bare CR in the request line (RFC 9112 §2.2)");
        }
        if (start < end && b[start] == ' ') {
            throw new HttpParseException(400, "more than one SP before the HTTP version (RFC 9112 §3)");
        }
        throw new HttpParseException(400, "malformed HTTP version '" + printable(text) + "' (RFC 9112 §2.3)");
    }

    /** "HTTP/" 1*DIGIT [ "." 1*DIGIT ]: a version, just not one we speak (HTTP/2.0, HTTP/3, HTTP/1.2). */
    private static boolean looksLikeVersion(byte[] b, int start, int end) {
        if (end - start < 6 || b[start] != 'H' || b[start + 1] != 'T' || b[start + 2] != 'T' || b[start + 3] != 'P'
                || b[start + 4] != '/') {
            return false;
        }
        int i = start + 5;
        int digits = 0;
        while (i < end && b[i] >= '0' && b[i] <= '9') {
            i++;
            digits++;
        }
        if (digits == 0 || digits > 3) {
            return false;
        }
        if (i == end) {
            return true;
        }
        if (b[i] != '.') {
            return false;
        }
        int minorStart = ++i;
        while (i < end && b[i] >= '0' && b[i] <= '9') {
            i++;
        }
        return i == end && i > minorStart && i - minorStart <= 3;
    }

    /** RFC 9112 §3.2: which target forms a method may use. */
    private static void checkTargetForm(String method, String target) throws HttpParseException {
        char first = target.charAt(0);
        if (Method.CONNECT.equals(method)) {
            // RFC 9112 §3.2.3: CONNECT uses authority-form (host:port), and only CONNECT does.
            if (!HostSyntax.isValid(target, true)) {
                throw new HttpParseException(400, "CONNECT needs an authority-form target host:port, got '"
                        + target + "' (RFC 9112 §3.2.3)");
            }
            return;
        }
        if (first == '/') {
            return; // origin-form, RFC 9112 §3.2.1
        }
        if (first == '*' && target.length() == 1) {
            // RFC 9112 §3.2.4: asterisk-form is only used for a server-wide OPTIONS request.
            if (Method.OPTIONS.equals(method)) {
                return;
            }
            throw new HttpParseException(400, "request-target * is only allowed with OPTIONS (RFC 9112 §3.2.4)");
        }
        if (isAbsoluteForm(target)) {
            return; // absolute-form, RFC 9112 §3.2.2; the proxy turns it into origin-form
        }
        throw new HttpParseException(400, "request-target '" + target + "' is not origin-form (/path), absolute-form"
                + " (scheme://authority/path), * (OPTIONS) or host:port (CONNECT) (RFC 9112 §3.2)");
    }

    /** scheme "://" ...: RFC 3986 §3.1 scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ). */
    private static boolean isAbsoluteForm(String target) {
        int n = target.length();
        int i = 0;
        while (i < n) {
            char c = target.charAt(i);
            boolean alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
            if (!(alpha || (i > 0 && ((c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.')))) {
                break;
            }
            i++;
        }
        return i > 0 && target.startsWith("://", i);
    }

    /**
     * RFC 9112 §3.2: a server MUST respond 400 to an HTTP/1.1 request without Host, to any request with more than one
     * Host field, and to one whose Host value is invalid.
     */
    private static void checkHost(String version, Headers headers) throws HttpParseException {
        String host = null;
        int count = 0;
        for (int i = 0, n = headers.size(); i < n; i++) {
            String name = headers.name(i);
            if (name.length() == 4 && name.equalsIgnoreCase("Host")) {
                host = headers.value(i);
                count++;
            }
        }
        if (count > 1) {
            throw new HttpParseException(400, count + " Host fields; exactly one is allowed (RFC 9112 §3.2)");
        }
        if (host == null) {
            if (HttpVersion.HTTP_1_1.equals(version)) {
                throw new HttpParseException(400, "HTTP/1.1 request without a Host field (RFC 9112 §3.2)");
            }
            return;
        }
        if (!HostSyntax.isValid(host, false)) {
            throw new HttpParseException(400,
                    "invalid Host '" + printable(host) + "' (RFC 9112 §3.2, RFC 3986 §3.2)");
        }
    }

    /** Control bytes shown as \xNN so an error message cannot carry them into a log line. */
    static String printable(String s) {
        StringBuilder sb = null;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 0x20 || c == 0x7f) {
                if (sb == null) {
                    sb = new StringBuilder(s.substring(0, i));
                }
                sb.append(String.format("\\x%02x", (int) c));
            } else if (sb != null) {
                sb.append(c);
            }
        }
        return sb == null ? s : sb.toString();
    }
}
