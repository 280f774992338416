package io.loomgate.http1;

import static java.nio.charset.StandardCharsets.ISO_8859_1;

/**
 * A fixed table of well-known words (methods, header names) so that parsing the usual ones costs a byte comparison
 * instead of a new String. Lookup is exact (case-sensitive): a name keeps the spelling it arrived with. Immutable and
 * shared by all connections.
 */
final class AsciiInterner {
    private final byte[][][] bytesByLength;
    private final String[][] wordsByLength;

    /** @param words the words to share; for header names both the canonical and the lower-case spelling */
    AsciiInterner(String... words) {
        int max = 0;
        for (String w : words) {
            max = Math.max(max, w.length());
        }
        int[] counts = new int[max + 1];
        for (String w : words) {
            counts[w.length()]++;
        }
        bytesByLength = new byte[max + 1][][];
        wordsByLength = new String[max + 1][];
        for (int len = 0; len <= max; len++) {
            bytesByLength[len] = new byte[counts[len]][];
            wordsByLength[len] = new String[counts[len]];
        }
        int[] fill = new int[max + 1];
        for (String w : words) {
            int len = w.length();
            bytesByLength[len][fill[len]] = w.getBytes(ISO_8859_1);
            wordsByLength[len][fill[len]] = w;
            fill[len]++;
        }
    }

    /** The shared String for bytes {@code b[start, end)}, or a new one when the word is not in the table. */
    String intern(byte[] b, int start, int end) {
        int len = end - start;
        if (len < bytesByLength.length) {
            byte[][] candidates = bytesByLength[len];
            for (int c = 0; c < candidates.length; c++) {
                if (equal(candidates[c], b, start, len)) {
                    return wordsByLength[len][c];
                }
            }
        }
        return new String(b, start, len, ISO_8859_1);
    }

    private static boolean equal(byte[] word, byte[] b, int start, int len) {
        for (int i = 0; i < len; i++) {
            if (word[i] != b[start + i]) {
                return false;
            }
        }
        return true;
    }
}
