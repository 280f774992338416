package io.loomgate.http;

/**
 * The characters a request-target may hold (RFC 9112 §3.2, whose forms are built from RFC 3986's URI characters):
 * visible ASCII only, so no SP, HTAB, other controls, DEL or non-ASCII byte (raw UTF-8 must be percent-encoded). The
 * one definition for both protocols: HTTP/1.1's request line ({@code http1.RequestHeadParser}) and HTTP/2's
 * {@code :path} ({@code http2.RequestFields}) ask here, so a target one refuses cannot reach an origin through the
 * other (issue 35: HTTP/2 forwarded TAB, DEL and raw UTF-8 that HTTP/1.1 answered 400 to).
 */
public final class RequestTargetChars {
    private RequestTargetChars() {
    }

    /** Whether the character (or byte value, 0-255) may appear in a request-target. */
    public static boolean isAllowed(int c) {
        return c > 0x20 && c < 0x7f;
    }

    /** The index of the first character a request-target may not hold, or -1 when every one may appear. */
    public static int firstRefused(CharSequence target) {
        for (int i = 0; i < target.length(); i++) {
            if (!isAllowed(target.charAt(i))) {
                return i;
            }
        }
        return -1;
    }

    /** How a refused character (byte value 0-255) is named in an error message ("SP", "control byte 0x07", ...). */
    public static String describe(int c) {
        return switch (c) {
            case '\r' -> "bare CR";
            case '\n' -> "bare LF";
            case 0 -> "NUL";
            case '\t' -> "HTAB";
            case ' ' -> "SP";
            default -> c < 0x20 || c == 0x7f ? String.format("control byte 0x%02x", c)
                    : c >= 0x80 ? String.format("non-ASCII byte 0x%02x", c) : "'" + (char) c + "'";
        };
    }
}
