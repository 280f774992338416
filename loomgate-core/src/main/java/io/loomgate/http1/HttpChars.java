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
    }

    private HttpChars() {
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
