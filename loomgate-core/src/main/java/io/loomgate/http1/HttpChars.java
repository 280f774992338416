package io.loomgate.http1;

import io.loomgate.http.RequestTargetChars;
import io.loomgate.http.Tokens;

/**
 * Byte classes of the HTTP grammar (RFC 9110 §5.6.2 tchar, §5.5 field-vchar) as lookup tables, so the parsers test a
 * byte with one array load, and the wording used when a byte is refused.
 */
final class HttpChars {
    /** tchar ({@link Tokens#isTchar}) as a table: the bytes of a method, field name, transfer coding, extension. */
    static final boolean[] TCHAR = new boolean[256];
    /** Bytes allowed inside a field value: HTAB, SP, VCHAR and obs-text (0x80-0xFF). */
    static final boolean[] FIELD_VALUE = new boolean[256];
    /** Bytes allowed in a quoted-string's qdtext (RFC 9110 §5.6.4), i.e. field value bytes except DQUOTE and "\". */
    static final boolean[] QDTEXT = new boolean[256];
    /** OWS's bytes (RFC 9110 §5.6.3): SP and HTAB. */
    static final boolean[] OWS = new boolean[256];
    /** Bytes a request-target may hold ({@link RequestTargetChars#isAllowed}). */
    static final boolean[] TARGET = new boolean[256];

    static {
        for (int c = 0; c < 256; c++) {
            TCHAR[c] = Tokens.isTchar(c);
        }
        FIELD_VALUE['\t'] = true;
        for (int c = 0x20; c <= 0x7e; c++) {
            FIELD_VALUE[c] = true;
        }
        for (int c = 0x80; c <= 0xff; c++) {
            FIELD_VALUE[c] = true;
        }
        System.arraycopy(FIELD_VALUE, 0, QDTEXT, 0, 256);
        QDTEXT['"'] = false;
        QDTEXT['\\'] = false;
        OWS[' '] = true;
        OWS['\t'] = true;
        for (int c = 0; c < 256; c++) {
            TARGET[c] = RequestTargetChars.isAllowed(c);
        }
    }

    private HttpChars() {
    }

    // The head parsers' byte loops are these two methods, not loops of the parsers' own: the JIT counts a loop's
    // iterations in the method that holds it, and a parser that loops over every byte of a head reaches C2's
    // on-stack-replacement threshold long before its call count reaches the one for a normal compilation, so C2
    // compiled RequestHeadParser.parse, FieldLines.parseLine and ResponseHeadParser.parse with all they inline
    // twice or more in the warm-up (an OSR version, then the normal one). Here the OSR compilation is of a method of a
    // few bytes, and both stay under C1's and C2's MaxInlineSize (35 bytes), so they are inlined wherever they are
    // called (journal 2026-12-01-s52-c2size).

    /** The index of the first byte of {@code b[from, end)} not in {@code table}, or {@code end}. */
    static int skip(boolean[] table, byte[] b, int from, int end) {
        int i = from;
        while (i < end && table[b[i] & 0xff]) {
            i++;
        }
        return i;
    }

    /** The end of {@code b[from, end)} without the bytes in {@code table} at its end. */
    static int trimEnd(boolean[] table, byte[] b, int from, int end) {
        int e = end;
        while (e > from && table[b[e - 1] & 0xff]) {
            e--;
        }
        return e;
    }

    static boolean isOws(byte b) {
        return b == ' ' || b == '\t';
    }

    static int hexValue(byte b) {
        if (b >= '0' && b <= '9') {
            return b - '0';
        }
        if (b >= 'a' && b <= 'f') {
            return b - 'a' + 10;
        }
        if (b >= 'A' && b <= 'F') {
            return b - 'A' + 10;
        }
        return -1;
    }

    /** How a refused byte is named in an error message ("bare CR", "NUL", "control byte 0x07", "'@'"). */
    static String describe(byte b) {
        return RequestTargetChars.describe(b & 0xff);
    }
}
