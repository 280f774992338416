package io.loomgate.http1;

import io.loomgate.http.HttpVersion;
import static java.nio.charset.StandardCharsets.ISO_8859_1;

import io.loomgate.http.Headers;
import io.loomgate.http.HttpLimits;
import io.loomgate.http.ResponseHead;
import io.loomgate.http.Status;
import java.io.EOFException;
import java.io.IOException;

/**
 * Parses a response head from an origin with the same strict rules as a request head (RFC 9112 §4-§5). Every
 * rejection is a 502 for the downstream client: the gateway cannot forward what it cannot frame. Stateless.
 */
final class ResponseHeadParser {
    /** The status a malformed response becomes. */
    static final int BAD = 502;

    private ResponseHeadParser() {
    }

    static ResponseHead parse(HttpInput in, HttpLimits limits) throws IOException {
        int maxLine = limits.maxRequestLineBytes();
        int lf = in.nextLine(maxLine);
        if (lf == HttpInput.EOF) {
            throw new EOFException(in.buffered() == 0 ? "stream ended before the response head"
                    : "stream ended inside the status line after " + in.buffered() + " bytes");
        }
        if (lf == HttpInput.TOO_LONG) {
            throw new HttpParseException(BAD, "status line longer than " + maxLine + " bytes");
        }
        byte[] b = in.buffer();
        int start = in.position();
        int end = FieldLines.contentEnd(b, start, lf, BAD);

        // RFC 9112 §4: status-line = HTTP-version SP status-code SP [ reason-phrase ]
        String version = version(b, start, end);
        if (end - start < 12 || b[start + 8] != ' ') {
            throw new HttpParseException(BAD, "status line must be HTTP-version SP 3DIGIT SP reason (RFC 9112 §4)");
        }
        int status = 0;
        for (int i = start + 9; i < start + 12; i++) {
            if (b[i] < '0' || b[i] > '9') {
                throw new HttpParseException(BAD, "status code must be three digits (RFC 9112 §4)");
            }
            status = status * 10 + (b[i] - '0');
        }
        if (status < 100 || status > 599) {
            // RFC 9110 §15: values outside 100..599 are invalid.
            throw new HttpParseException(BAD, "status code " + status + " is outside 100..599 (RFC 9110 §15)");
        }
        String reason;
        if (end - start == 12) {
            // "HTTP/1.1 200" without the SP before an empty reason: common in the wild and unambiguous, so accepted.
            reason = "";
        } else {
            if (b[start + 12] != ' ') {
                throw new HttpParseException(BAD, "status code must be three digits followed by SP (RFC 9112 §4)");
            }
            reason = reason(b, start + 13, end, status);
        }
        in.consumeTo(lf + 1);

        // Room for the 2 a proxy may set toward the client: Via, and Connection or Upgrade.
        Headers headers = FieldLines.sizedFor(in, 2);
        FieldLines.read(in, headers, limits.maxHeaderBytes(), limits.maxHeaderCount(), BAD, BAD, "header");
        return new ResponseHead(version, status, reason, headers);
    }

    private static String version(byte[] b, int start, int end) throws HttpParseException {
        if (end - start >= 8 && b[start] == 'H' && b[start + 1] == 'T' && b[start + 2] == 'T' && b[start + 3] == 'P'
                && b[start + 4] == '/' && b[start + 5] == '1' && b[start + 6] == '.') {
            if (b[start + 7] == '1') {
                return HttpVersion.HTTP_1_1;
            }
            if (b[start + 7] == '0') {
                return HttpVersion.HTTP_1_0;
            }
        }
        throw new HttpParseException(BAD, "status line does not start with HTTP/1.1 or HTTP/1.0 (RFC 9112 §2.3, §4)");
    }

    /** reason-phrase = 1*( HTAB / SP / VCHAR / obs-text ); the standard phrase is shared rather than copied. */
    private static String reason(byte[] b, int start, int end, int status) throws HttpParseException {
        boolean[] ok = HttpChars.FIELD_VALUE;
        for (int i = start; i < end; i++) {
            if (!ok[b[i] & 0xff]) {
                throw new HttpParseException(BAD, HttpChars.describe(b[i]) + " in reason phrase (RFC 9112 §4)");
            }
        }
        String standard = Status.reason(status);
        int len = end - start;
        if (standard.length() == len) {
            int i = 0;
            while (i < len && standard.charAt(i) == b[start + i]) {
                i++;
            }
            if (i == len) {
                return standard;
            }
        }
        return len == 0 ? "" : new String(b, start, len, ISO_8859_1);
    }
}
