package io.loomgate.http1;

import static java.nio.charset.StandardCharsets.ISO_8859_1;

/**
 * The values of a few fields that repeat from message to message (an origin's Date and Content-Type, a client's Host
 * and User-Agent), shared so that a repeat costs a byte comparison instead of a new String and its array (about 60-70
 * bytes each: W8's response carries three of them, about 170 bytes a request).
 *
 * <p>A direct-mapped table keyed by a hash of the bytes: a miss makes the String and takes the slot. Shared by every
 * connection without a lock: a slot holds a String (immutable, published safely through its final fields), so a
 * racing reader sees the old value or the new one, and returns one only when its bytes are the bytes parsed.
 *
 * <p>Only the fields {@link #shared} names, never a credential or a cookie (a value held here outlives its exchange;
 * a secret must not, nor be compared against other clients' guesses), and no value longer than {@link #MAX_LENGTH}.
 */
final class RecentValues {
    static final int MAX_LENGTH = 64;
    private static final int SLOTS = 256; // a power of two: at most 256 short strings held, about 25 KB
    private static final String[] TABLE = new String[SLOTS];

    private RecentValues() {
    }

    /** Whether values of this field are shared: names whose values repeat and carry nothing secret. */
    static boolean shared(String name) {
        return switch (name.length()) {
            case 4 -> name.equalsIgnoreCase("Host") || name.equalsIgnoreCase("Date") || name.equalsIgnoreCase("Vary");
            case 6 -> name.equalsIgnoreCase("Accept") || name.equalsIgnoreCase("Server");
            case 10 -> name.equalsIgnoreCase("User-Agent") || name.equalsIgnoreCase("Connection");
            case 12 -> name.equalsIgnoreCase("Content-Type");
            case 13 -> name.equalsIgnoreCase("Cache-Control");
            case 14 -> name.equalsIgnoreCase("Content-Length");
            case 15 -> name.equalsIgnoreCase("Accept-Encoding") || name.equalsIgnoreCase("Accept-Language");
            default -> false;
        };
    }

    /** The String for bytes {@code b[start, end)}: the one made for the same bytes last time, or a new one. */
    static String of(byte[] b, int start, int end) {
        int length = end - start;
        if (length > MAX_LENGTH) {
            return new String(b, start, length, ISO_8859_1);
        }
        int h = length;
        for (int i = start; i < end; i++) {
            h = 31 * h + b[i];
        }
        int slot = (h ^ (h >>> 16)) & (SLOTS - 1);
        String s = TABLE[slot];
        if (s != null && sameBytes(s, b, start, length)) {
            return s;
        }
        s = new String(b, start, length, ISO_8859_1);
        TABLE[slot] = s;
        return s;
    }

    private static boolean sameBytes(String s, byte[] b, int start, int length) {
        if (s.length() != length) {
            return false;
        }
        for (int i = 0; i < length; i++) {
            if (s.charAt(i) != (char) (b[start + i] & 0xff)) {
                return false;
            }
        }
        return true;
    }
}
