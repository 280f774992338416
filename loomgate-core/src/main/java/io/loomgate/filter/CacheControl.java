package io.loomgate.filter;

import io.loomgate.http.Headers;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The {@code Cache-Control} directives {@link LocalResponseCacheFilter} reads and the rewrite of {@code max-age} it
 * does as Spring Cloud Gateway's cache does ({@code SetMaxAgeHeaderAfterCacheExchangeMutator},
 * {@code SetCacheDirectivesByMaxAgeAfterCacheExchangeMutator}).
 */
final class CacheControl {
    private static final Pattern MAX_AGE = Pattern.compile("\\bmax-age=\\d+\\b");

    private CacheControl() {
    }

    /** Whether a Cache-Control field of {@code h} has the directive (a token, any case, with or without a value). */
    static boolean has(Headers h, String directive) {
        for (String value : h.all("Cache-Control")) {
            for (String part : value.split(",")) {
                String d = part.trim().toLowerCase(Locale.ROOT);
                int eq = d.indexOf('=');
                if ((eq < 0 ? d : d.substring(0, eq).trim()).equals(directive)) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * Writes {@code max-age=seconds} (replacing the one there or added), then, as SCG: a positive max-age drops
     * {@code no-cache}, {@code must-revalidate} and {@code no-store}; zero adds {@code no-cache,must-revalidate}.
     */
    static void rewriteMaxAge(Headers h, long seconds) {
        List<String> values = new ArrayList<>(h.all("Cache-Control"));
        boolean present = false;
        for (int i = 0; i < values.size(); i++) {
            Matcher m = MAX_AGE.matcher(values.get(i));
            if (m.find()) {
                values.set(i, m.replaceFirst("max-age=" + seconds));
                present = true;
            }
        }
        if (!present) {
            values.add("max-age=" + seconds);
        }
        List<String> directives = new ArrayList<>();
        for (String v : values) {
            for (String part : v.split(",")) {
                String d = part.trim();
                if (!d.isEmpty() && !(seconds > 0 && d.matches("(?i)must-revalidate|no-cache|no-store"))) {
                    directives.add(d);
                }
            }
        }
        if (seconds <= 0) {
            if (directives.stream().noneMatch(d -> d.equalsIgnoreCase("no-cache"))) {
                directives.add("no-cache");
            }
            if (directives.stream().noneMatch(d -> d.equalsIgnoreCase("must-revalidate"))) {
                directives.add("must-revalidate");
            }
        }
        h.set("Cache-Control", String.join(",", directives));
    }
}
