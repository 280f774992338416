package io.loomgate.http1;

import io.loomgate.http.Headers;
import io.loomgate.http.Tokens;

/**
 * Reads the two fields that frame a body, Content-Length and Transfer-Encoding (RFC 9112 §6), across every field of
 * the name and every element of their comma lists. Stateless; callers decide what each outcome means for a request
 * or a response.
 */
final class FramingFields {
    static final String TRANSFER_ENCODING = "Transfer-Encoding";
    static final String CONTENT_LENGTH = "Content-Length";

    /** What a message's Transfer-Encoding fields say, as far as framing is concerned. */
    enum Codings {
        /** Chunked alone. */
        CHUNKED,
        /** Other codings, then chunked last (e.g. gzip, chunked). */
        CODED_THEN_CHUNKED,
        /** The final coding is not chunked. */
        NOT_CHUNKED_FINAL,
        /** Chunked appears more than once (RFC 9112 §7: a sender MUST NOT do this). */
        CHUNKED_TWICE
    }

    /** Content-Length is 1*DIGIT; 18 digits keep any value inside a long. */
    private static final int MAX_LENGTH_DIGITS = 18;

    private FramingFields() {
    }

    /**
     * The transfer codings listed by every Transfer-Encoding field from index {@code first} on, as one of the
     * {@link Codings}.
     *
     * @throws HttpParseException with {@code badStatus} when the list is empty or holds something that is not a
     *                            transfer-coding (RFC 9112 §6.1: transfer-coding = token *( OWS ";" OWS param ))
     */
    static Codings transferCodings(Headers headers, int first, int badStatus) throws HttpParseException {
        int codings = 0;
        int chunked = 0;
        boolean lastIsChunked = false;
        for (int f = first, n = headers.size(); f < n; f++) {
            if (!headers.name(f).equalsIgnoreCase(TRANSFER_ENCODING)) {
                continue;
            }
            String v = headers.value(f);
            int len = v.length();
            int i = 0;
            while (i < len) {
                // RFC 9110 §5.6.1: empty list elements are ignored.
                while (i < len && (v.charAt(i) == ',' || v.charAt(i) == ' ' || v.charAt(i) == '\t')) {
                    i++;
                }
                if (i == len) {
                    break;
                }
                int start = i;
                while (i < len && Tokens.isTchar(v.charAt(i))) {
                    i++;
                }
                int end = i;
                if (end == start) {
                    throw new HttpParseException(badStatus, "invalid Transfer-Encoding '" + v + "' (RFC 9112 §6.1)");
                }
                while (i < len && (v.charAt(i) == ' ' || v.charAt(i) == '\t')) {
                    i++;
                }
                boolean isChunked = end - start == 7 && v.regionMatches(true, start, "chunked", 0, 7);
                if (i < len && v.charAt(i) == ';') {
                    if (isChunked) {
                        throw new HttpParseException(badStatus, "chunked takes no parameters: '" + v
                                + "' (RFC 9112 §7.1)");
                    }
                    while (i < len && v.charAt(i) != ',') {
                        i++; // a parameter of a coding we refuse anyway; its syntax does not matter
                    }
                } else if (i < len && v.charAt(i) != ',') {
                    throw new HttpParseException(badStatus, "invalid Transfer-Encoding '" + v + "' (RFC 9112 §6.1)");
                }
                codings++;
                lastIsChunked = isChunked;
                if (isChunked) {
                    chunked++;
                }
            }
        }
        if (codings == 0) {
            throw new HttpParseException(badStatus, "Transfer-Encoding without a coding (RFC 9112 §6.1)");
        }
        if (!lastIsChunked) {
            return Codings.NOT_CHUNKED_FINAL;
        }
        if (chunked > 1) {
            return Codings.CHUNKED_TWICE;
        }
        return codings > 1 ? Codings.CODED_THEN_CHUNKED : Codings.CHUNKED;
    }

    /**
     * The body length given by every Content-Length field from index {@code first} on. RFC 9112 §6.3 rule 5: a list
     * of identical values (or identical fields) is that value; anything else is invalid framing.
     *
     * @throws HttpParseException with {@code badStatus} for a value that is not 1*DIGIT (sign, spaces, empty, more
     *                            than 18 digits) or for differing values
     */
    static long contentLength(Headers headers, int first, int badStatus) throws HttpParseException {
        long length = -1;
        for (int f = first, n = headers.size(); f < n; f++) {
            if (!headers.name(f).equalsIgnoreCase(CONTENT_LENGTH)) {
                continue;
            }
            String v = headers.value(f);
            int len = v.length();
            int i = 0;
            while (true) {
                while (i < len && (v.charAt(i) == ' ' || v.charAt(i) == '\t')) {
                    i++;
                }
                int start = i;
                long value = 0;
                while (i < len && v.charAt(i) >= '0' && v.charAt(i) <= '9') {
                    value = value * 10 + (v.charAt(i) - '0');
                    i++;
                    if (i - start > MAX_LENGTH_DIGITS) {
                        throw new HttpParseException(badStatus, "Content-Length longer than " + MAX_LENGTH_DIGITS
                                + " digits (RFC 9112 §6.2)");
                    }
                }
                while (i < len && (v.charAt(i) == ' ' || v.charAt(i) == '\t')) {
                    i++;
                }
                if (i == start || (i < len && v.charAt(i) != ',')) {
                    throw new HttpParseException(badStatus, "Content-Length '" + RequestHeadParser.printable(v)
                            + "' is not a non-negative decimal number (RFC 9112 §6.2)");
                }
                if (length >= 0 && value != length) {
                    throw new HttpParseException(badStatus, "differing Content-Length values " + length + " and "
                            + value + " (RFC 9112 §6.3)");
                }
                length = value;
                if (i == len) {
                    break;
                }
                i++; // past the comma: another element must follow ("5," is refused)
            }
        }
        return length;
    }
}
