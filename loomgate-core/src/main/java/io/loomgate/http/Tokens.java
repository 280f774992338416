package io.loomgate.http;

/**
 * The token of RFC 9110 §5.6.2 ({@code 1*tchar}): method names, field names, transfer codings, parameter names.
 * The one definition of tchar: the codec's byte tables, header filters and predicates all ask here.
 */
public final class Tokens {
    private static final boolean[] TCHAR = new boolean[128];

    static {
        for (int c = '0'; c <= '9'; c++) {
            TCHAR[c] = true;
        }
        for (int c = 'a'; c <= 'z'; c++) {
            TCHAR[c] = true;
            TCHAR[c - 32] = true;
        }
        for (char c : "!#$%&'*+-.^_`|~".toCharArray()) {
            TCHAR[c] = true;
        }
    }

    private Tokens() {
    }

    /** Whether the character (or byte value, 0-255) may appear in a token. */
    public static boolean isTchar(int c) {
        return c >= 0 && c < TCHAR.length && TCHAR[c];
    }

    /** Whether the text is a token: at least one character, every one a tchar. */
    public static boolean isToken(CharSequence s) {
        for (int i = 0; i < s.length(); i++) {
            if (!isTchar(s.charAt(i))) {
                return false;
            }
        }
        return !s.isEmpty();
    }
}
