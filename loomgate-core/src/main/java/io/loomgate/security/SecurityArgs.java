package io.loomgate.security;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Reads the arguments of the security filters. Configuration hands every value over as text: a YAML list arrives
 * comma-joined, a YAML mapping as {@code key=value} pairs, comma-joined. Every failure is an
 * IllegalArgumentException naming the argument and what was expected, which configuration turns into a file:line
 * error.
 */
final class SecurityArgs {
    private final Map<String, String> args;

    SecurityArgs(Map<String, String> args) {
        this.args = args;
    }

    boolean has(String name) {
        String v = args.get(name);
        return v != null && !v.isBlank();
    }

    String required(String name) {
        if (!has(name)) {
            throw new IllegalArgumentException("missing argument '" + name + "'");
        }
        return args.get(name).trim();
    }

    String optional(String name, String otherwise) {
        return has(name) ? args.get(name).trim() : otherwise;
    }

    /** Comma-separated items, trimmed, none empty; an absent argument is the default. */
    List<String> list(String name, List<String> otherwise) {
        if (!has(name)) {
            return otherwise;
        }
        List<String> out = new ArrayList<>();
        for (String item : args.get(name).split(",", -1)) {
            String t = item.trim();
            if (t.isEmpty()) {
                throw new IllegalArgumentException(name + ": empty item in '" + args.get(name) + "'");
            }
            out.add(t);
        }
        return List.copyOf(out);
    }

    /** A YAML mapping ({@code {sub: X-User-Id}}), in the order written. */
    Map<String, String> mapping(String name) {
        Map<String, String> out = new LinkedHashMap<>();
        if (!has(name)) {
            return out;
        }
        for (String pair : args.get(name).split(",", -1)) {
            int eq = pair.indexOf('=');
            if (eq <= 0 || pair.substring(eq + 1).isBlank()) {
                throw new IllegalArgumentException(name + ": expected a mapping like {key: value}, got '"
                        + args.get(name) + "'");
            }
            String key = pair.substring(0, eq).trim();
            if (out.putIfAbsent(key, pair.substring(eq + 1).trim()) != null) {
                throw new IllegalArgumentException(name + ": '" + key + "' appears twice");
            }
        }
        return out;
    }

    boolean bool(String name, boolean otherwise) {
        if (!has(name)) {
            return otherwise;
        }
        String v = args.get(name).trim();
        if (v.equalsIgnoreCase("true")) {
            return true;
        }
        if (v.equalsIgnoreCase("false")) {
            return false;
        }
        throw new IllegalArgumentException(name + ": expected true or false, got '" + v + "'");
    }

    int intAtLeast(String name, int otherwise, int min) {
        if (!has(name)) {
            return otherwise;
        }
        String v = args.get(name).trim();
        try {
            int n = Integer.parseInt(v);
            if (n >= min) {
                return n;
            }
        } catch (NumberFormatException e) {
            // the message below says what was expected
        }
        throw new IllegalArgumentException(name + ": expected an integer >= " + min + ", got '" + v + "'");
    }

    /** {@code 250ms}, {@code 30s}, {@code 5m}, {@code 1h}, {@code 1d}; a unit is required, as everywhere in the file. */
    Duration duration(String name, Duration otherwise, boolean zeroAllowed) {
        if (!has(name)) {
            return otherwise;
        }
        String v = args.get(name).trim().toLowerCase(Locale.ROOT);
        int digits = 0;
        while (digits < v.length() && Character.isDigit(v.charAt(digits))) {
            digits++;
        }
        String unit = v.substring(digits).trim();
        Duration d = null;
        if (digits > 0 && digits <= 9) {
            long n = Long.parseLong(v.substring(0, digits));
            d = switch (unit) {
                case "ms" -> Duration.ofMillis(n);
                case "s" -> Duration.ofSeconds(n);
                case "m" -> Duration.ofMinutes(n);
                case "h" -> Duration.ofHours(n);
                case "d" -> Duration.ofDays(n);
                default -> null;
            };
        }
        if (d == null || (d.isZero() && !zeroAllowed)) {
            throw new IllegalArgumentException(name + ": expected a duration like 500ms, 30s, 5m or 1h"
                    + (zeroAllowed ? "" : " longer than 0") + ", got '" + args.get(name).trim() + "'");
        }
        return d;
    }

    /** A size as Spring writes it: {@code 5MB}, {@code 512KB}, {@code 1GB}, {@code 100B} or bare bytes (1KB = 1024 B). */
    long size(String name, long otherwise) {
        if (!has(name)) {
            return otherwise;
        }
        String v = args.get(name).trim();
        String upper = v.toUpperCase(Locale.ROOT);
        int digits = 0;
        while (digits < upper.length() && Character.isDigit(upper.charAt(digits))) {
            digits++;
        }
        long factor = switch (upper.substring(digits).trim()) {
            case "", "B" -> 1;
            case "KB" -> 1024;
            case "MB" -> 1024 * 1024;
            case "GB" -> 1024L * 1024 * 1024;
            default -> -1;
        };
        if (digits == 0 || digits > 12 || factor < 0) {
            throw new IllegalArgumentException(name + ": expected a size like 5MB, 512KB or 1024 (bytes), got '"
                    + v + "'");
        }
        return Long.parseLong(upper.substring(0, digits)) * factor;
    }

    /** An RFC 9110 token (a header or method name). */
    static boolean isToken(String s) {
        if (s.isEmpty()) {
            return false;
        }
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    || "!#$%&'*+-.^_`|~".indexOf(c) >= 0;
            if (!ok) {
                return false;
            }
        }
        return true;
    }

    /** A header name, checked. */
    static String headerName(String argument, String name) {
        if (!isToken(name)) {
            throw new IllegalArgumentException(argument + ": '" + name + "' is not a valid header name");
        }
        return name;
    }
}
