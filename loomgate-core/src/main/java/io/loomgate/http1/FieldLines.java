package io.loomgate.http1;

import static java.nio.charset.StandardCharsets.ISO_8859_1;

import io.loomgate.http.Headers;
import java.io.EOFException;
import java.io.IOException;
import java.util.Locale;

/**
 * Reads a field section (RFC 9112 §5): the header fields of a request or response head, or the trailer fields of a
 * chunked body, through the empty line that ends it. The same strict rules apply everywhere; only the status of a
 * rejection differs (400 for a request, 502 for a response from an origin).
 */
final class FieldLines {
    /** Names seen on nearly every message, shared instead of allocated; both usual spellings of each. */
    private static final AsciiInterner NAMES = new AsciiInterner(withLowerCase(
            "Host", "User-Agent", "Accept", "Accept-Encoding", "Accept-Language", "Accept-Ranges", "Age",
            "Authorization", "Cache-Control", "Connection", "Content-Encoding", "Content-Language",
            "Content-Length", "Content-Location", "Content-Range", "Content-Type", "Cookie", "Date", "ETag",
            "Expect", "Expires", "Forwarded", "If-Match", "If-Modified-Since", "If-None-Match", "Keep-Alive",
            "Last-Modified", "Location", "Origin", "Pragma", "Proxy-Authorization", "Proxy-Connection", "Range",
            "Referer", "Server", "Set-Cookie", "TE", "Trailer", "Transfer-Encoding", "Upgrade", "Vary", "Via",
            "WWW-Authenticate", "X-Forwarded-For", "X-Forwarded-Host", "X-Forwarded-Proto", "X-Request-Id",
            "X-Real-IP", "Sec-Fetch-Mode", "Sec-Fetch-Site", "Sec-Fetch-Dest", "Upgrade-Insecure-Requests",
            "Strict-Transport-Security", "Access-Control-Allow-Origin"));

    /** The most fields a list is sized for before they are read (a usual head has 5-20; past it the list grows). */
    private static final int FIELDS_PRESIZED = 64;

    private FieldLines() {
    }

    /**
     * A list for the section at the read position, sized to its buffered field lines plus {@code room} for fields
     * the proxy adds on the way: a fixed 16 was two thirds empty for a usual head (two arrays of 16 references and
     * one of 16 bytes per message).
     */
    static Headers sizedFor(HttpInput in, int room) {
        return new Headers(in.fieldLinesBuffered(FIELDS_PRESIZED) + room);
    }

    /**
     * Reads field lines into {@code headers} until the empty line, consuming it.
     *
     * @param maxBytes   bound on the whole section including the final CRLF
     * @param maxCount   bound on the number of fields
     * @param badStatus  status for a malformed line
     * @param overStatus status for a section over either bound
     * @param what       "header" or "trailer", for messages
     */
    static void read(HttpInput in, Headers headers, int maxBytes, int maxCount, int badStatus, int overStatus,
                     String what) throws IOException {
        int used = 0;
        while (true) {
            int lf = in.nextLine(maxBytes - used - 2);
            if (lf == HttpInput.EOF) {
                throw new EOFException("stream ended inside the " + what + " section");
            }
            if (lf == HttpInput.TOO_LONG) {
                // RFC 6585 §5 (431) for heads; RFC 9112 §7.1.2 lets a recipient bound trailers too.
                throw new HttpParseException(overStatus, what + " section larger than " + maxBytes + " bytes");
            }
            byte[] b = in.buffer();
            int start = in.position();
            int end = contentEnd(b, start, lf, badStatus);
            used += lf + 1 - start;
            in.consumeTo(lf + 1);
            if (end == start) {
                return;
            }
            if (headers.size() >= maxCount) {
                throw new HttpParseException(overStatus, "more than " + maxCount + " " + what + " fields");
            }
            parseLine(b, start, end, headers, badStatus, what);
        }
    }

    /**
     * The end of a line's content: the index of the CR before {@code lf}. RFC 9112 §2.2: we accept CRLF only, so a
     * bare LF is refused (a recipient MAY accept it, but then two parsers can disagree on where a line ends).
     */
    static int contentEnd(byte[] b, int start, int lf, int badStatus) throws HttpParseException {
        if (lf == start || b[lf - 1] != '\r') {
            throw new HttpParseException(badStatus, "bare LF: lines must end in CRLF (RFC 9112 §2.2)");
        }
        return lf - 1;
    }

    /** Parses {@code b[start, end)} (a line without its CRLF) as {@code name ":" OWS value OWS}. */
    static void parseLine(byte[] b, int start, int end, Headers headers, int badStatus, String what)
            throws HttpParseException {
        if (HttpChars.isOws(b[start])) {
            // RFC 9112 §5.2: obs-fold (a line continuing the previous field) must be rejected or replaced; a
            // server rejects it with 400. This also refuses whitespace before the first field (RFC 9112 §2.2).
            throw new HttpParseException(badStatus, what + " line starts with whitespace (obs-fold, RFC 9112 §5.2)");
        }
        boolean[] tchar = HttpChars.TCHAR;
        int i = start;
        while (i < end && tchar[b[i] & 0xff]) {
            i++;
        }
        if (i == end) {
            throw new HttpParseException(badStatus, what + " line without a colon (RFC 9112 §5)");
        }
        if (b[i] != ':') {
            if (HttpChars.isOws(b[i])) {
                // RFC 9112 §5.1: no whitespace is allowed between the field name and colon; MUST reject with 400.
                throw new HttpParseException(badStatus,
                        "whitespace between " + what + " field name and colon (RFC 9112 §5.1)");
            }
            // RFC 9110 §5.1: field-name = token.
            throw new HttpParseException(badStatus,
                    HttpChars.describe(b[i]) + " in " + what + " field name (RFC 9110 §5.1)");
        }
        if (i == start) {
            throw new HttpParseException(badStatus, "empty " + what + " field name (RFC 9110 §5.1)");
        }
        String name = NAMES.intern(b, start, i);
        int vs = i + 1;
        int ve = end;
        // RFC 9112 §5.1: OWS around the value is not part of it.
        while (vs < ve && HttpChars.isOws(b[vs])) {
            vs++;
        }
        while (ve > vs && HttpChars.isOws(b[ve - 1])) {
            ve--;
        }
        boolean[] valueBytes = HttpChars.FIELD_VALUE;
        for (int j = vs; j < ve; j++) {
            if (!valueBytes[b[j] & 0xff]) {
                // RFC 9110 §5.5: CR, LF and NUL are invalid in a value and the message must be rejected; other
                // controls are not field-vchar either.
                throw new HttpParseException(badStatus,
                        HttpChars.describe(b[j]) + " in value of " + what + " field " + name + " (RFC 9110 §5.5)");
            }
        }
        String value;
        if (vs == ve) {
            value = "";
        } else if (RecentValues.shared(name)) {
            value = RecentValues.of(b, vs, ve); // a repeat (Date, Content-Type, Host ...) makes no new String
        } else {
            value = new String(b, vs, ve - vs, ISO_8859_1);
        }
        headers.add(name, value);
    }

    private static String[] withLowerCase(String... names) {
        String[] all = new String[names.length * 2];
        for (int i = 0; i < names.length; i++) {
            all[2 * i] = names[i];
            all[2 * i + 1] = names[i].toLowerCase(Locale.ROOT);
        }
        return all;
    }
}
