package io.loomgate.config;

import java.util.Collection;
import java.util.Locale;

/** Suggests the closest known name for a misspelt one: edit distance at most 2, ignoring case. */
final class DidYouMean {
    private static final int MAX_DISTANCE = 2;

    private DidYouMean() {
    }

    /** The closest candidate within distance 2 (the first of equals), or null. */
    static String closest(String word, Collection<String> candidates) {
        String best = null;
        int bestDistance = MAX_DISTANCE + 1;
        String w = word.toLowerCase(Locale.ROOT);
        for (String c : candidates) {
            int d = distance(w, c.toLowerCase(Locale.ROOT));
            if (d < bestDistance) {
                best = c;
                bestDistance = d;
            }
        }
        return best;
    }

    /** {@code " — did you mean 'x'?"}, or the empty string when nothing is close. */
    static String hint(String word, Collection<String> candidates) {
        String c = closest(word, candidates);
        return c == null ? "" : " — did you mean '" + c + "'?";
    }

    /** Levenshtein distance. */
    static int distance(String a, String b) {
        int[] prev = new int[b.length() + 1];
        int[] cur = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            prev[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            cur[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                cur[j] = Math.min(Math.min(cur[j - 1] + 1, prev[j] + 1), prev[j - 1] + cost);
            }
            int[] t = prev;
            prev = cur;
            cur = t;
        }
        return prev[b.length()];
    }
}
