package io.loomgate.lab.backend;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

/** The parameters of a request's query string, with typed reads that refuse bad values by name. */
final class QueryParams {
    private final Map<String, String> values = new HashMap<>();

    QueryParams(String rawQuery) {
        if (rawQuery == null || rawQuery.isEmpty()) {
            return;
        }
        for (String pair : rawQuery.split("&")) {
            if (pair.isEmpty()) {
                continue;
            }
            int eq = pair.indexOf('=');
            String name = eq < 0 ? pair : pair.substring(0, eq);
            String value = eq < 0 ? "" : pair.substring(eq + 1);
            values.putIfAbsent(decode(name), decode(value));
        }
    }

    String text(String name) {
        return values.get(name);
    }

    /** The parameter as a long in [min, max], or the default when absent. */
    long number(String name, long defaultValue, long min, long max) {
        String v = values.get(name);
        return v == null ? defaultValue : parse(name, v, min, max);
    }

    static long parse(String what, String text, long min, long max) {
        long n;
        try {
            n = Long.parseLong(text);
        } catch (NumberFormatException e) {
            throw new BadRequest(what + " must be an integer in " + min + ".." + max + ", got '" + text + "'");
        }
        if (n < min || n > max) {
            throw new BadRequest(what + " must be in " + min + ".." + max + ", got " + n);
        }
        return n;
    }

    private static String decode(String s) {
        try {
            return URLDecoder.decode(s, StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            throw new BadRequest("malformed percent-encoding in the query: '" + s + "'");
        }
    }
}
