package io.loomgate.extension;

import io.loomgate.http.Tokens;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * The one value grammar of predicate and filter arguments: text, whole numbers, booleans, lists, mappings, regular
 * expressions, durations ({@link Durations}: {@code 500ms}, {@code 2s}, {@code 1d}, ISO-8601), sizes ({@code 64KB}),
 * statuses and status series ({@link StatusCodes}: a code or any Spring {@code HttpStatus} name) and header names
 * (RFC 9110 tokens). Every failure is an {@link ArgumentException} naming the argument, which configuration turns into
 * an error naming the file, the line the argument was written on and the route.
 *
 * <p>Configuration hands every value over as text: a YAML list arrives comma-joined, a YAML mapping as
 * {@code key=value} pairs, comma-joined. One rule for every reader but {@link #present}: an argument absent or written
 * blank counts as not written, and a written one is trimmed (white space around a name, number, pattern or path is
 * never meaningful, and YAML keeps it only inside quotes). {@link #present} is for values where white space is
 * content, such as header values. Readers that take an {@code otherwise} return it when the argument is not written;
 * the others require it.
 */
public final class ExtensionArgs {
    private static final Pattern SIZE = Pattern.compile("(\\d{1,12})\\s*(B|KB|MB|GB)?", Pattern.CASE_INSENSITIVE);

    private final Map<String, String> args;

    /** @param args the bound arguments a factory's {@code create} receives */
    public ExtensionArgs(Map<String, String> args) {
        this.args = args;
    }

    /** Whether the argument was written (and not blank). */
    public boolean has(String name) {
        return written(name) != null;
    }

    /** Written and not blank; trimmed. */
    public String required(String name) {
        String v = written(name);
        if (v == null) {
            throw new ArgumentException(name, "missing argument '" + name + "'");
        }
        return v;
    }

    /** Must be written, but may be empty ({@code value: ""}); as written, white space included. */
    public String present(String name) {
        String v = args.get(name);
        if (v == null) {
            throw new ArgumentException(name, "missing argument '" + name + "'");
        }
        return v;
    }

    /** Trimmed, or {@code otherwise} when not written. */
    public String optional(String name, String otherwise) {
        String v = written(name);
        return v == null ? otherwise : v;
    }

    /** A whole number of at least {@code min}, which must be written. */
    public int intAtLeast(String name, int min) {
        return intIn(name, required(name), min, Integer.MAX_VALUE);
    }

    /** A whole number of at least {@code min}, or {@code otherwise} when not written. */
    public int intAtLeast(String name, int otherwise, int min) {
        String v = written(name);
        return v == null ? otherwise : intIn(name, v, min, Integer.MAX_VALUE);
    }

    /** A whole number from {@code min} to {@code max}, or {@code otherwise} when not written. */
    public int intIn(String name, int otherwise, int min, int max) {
        String v = written(name);
        return v == null ? otherwise : intIn(name, v, min, max);
    }

    private static int intIn(String name, String v, int min, int max) {
        try {
            int n = Integer.parseInt(v);
            if (n >= min && n <= max) {
                return n;
            }
        } catch (NumberFormatException e) {
            // the message below says what was expected
        }
        throw new ArgumentException(name, name + ": expected " + (max == Integer.MAX_VALUE
                ? "an integer >= " + min : "a whole number from " + min + " to " + max) + ", got '" + v + "'");
    }

    /** A decimal number from {@code min} to {@code max} ({@code 0.5}), or {@code otherwise} when not written. */
    public double decimalIn(String name, double otherwise, double min, double max) {
        String v = written(name);
        if (v == null) {
            return otherwise;
        }
        try {
            double d = Double.parseDouble(v);
            if (d >= min && d <= max) {
                return d;
            }
        } catch (NumberFormatException e) {
            // the message below says what was expected
        }
        throw new ArgumentException(name, name + ": expected a number from " + min + " to " + max + ", got '" + v
                + "'");
    }

    /** {@code true} or {@code false} in any case, or {@code otherwise} when not written. */
    public boolean bool(String name, boolean otherwise) {
        String v = written(name);
        if (v == null) {
            return otherwise;
        }
        if (v.equalsIgnoreCase("true")) {
            return true;
        }
        if (v.equalsIgnoreCase("false")) {
            return false;
        }
        throw new ArgumentException(name, name + ": expected true or false, got '" + v + "'");
    }

    /**
     * A comma-separated list of at least one non-empty item, which must be written. Commas inside braces do not
     * separate, so a pattern variable's regex keeps its quantifier: {@code /users/{id:[0-9]{1,3}}} is one item.
     */
    public List<String> list(String name) {
        String text = required(name);
        List<String> items = new ArrayList<>();
        int depth = 0;
        int start = 0;
        for (int i = 0; i <= text.length(); i++) {
            char c = i < text.length() ? text.charAt(i) : ',';
            if (c == '{') {
                depth++;
            } else if (c == '}') {
                depth = Math.max(0, depth - 1);
            } else if (c == ',' && (depth == 0 || i == text.length())) {
                String t = text.substring(start, i).trim();
                if (t.isEmpty()) {
                    throw new ArgumentException(name, name + ": empty item in '" + text + "'");
                }
                items.add(t);
                start = i + 1;
            }
        }
        return List.copyOf(items);
    }

    /** As {@link #list(String)}, or {@code otherwise} when not written. */
    public List<String> list(String name, List<String> otherwise) {
        return has(name) ? list(name) : otherwise;
    }

    /**
     * A YAML mapping ({@code {sub: X-User-Id}}), which arrives as {@code key=value} pairs, in the order written; empty
     * when not written.
     */
    public Map<String, String> mapping(String name) {
        Map<String, String> out = new LinkedHashMap<>();
        String text = written(name);
        if (text == null) {
            return out;
        }
        for (String pair : text.split(",", -1)) {
            int eq = pair.indexOf('=');
            if (eq <= 0 || pair.substring(eq + 1).isBlank()) {
                throw new ArgumentException(name, name + ": expected a mapping like {key: value}, got '" + text + "'");
            }
            String key = pair.substring(0, eq).trim();
            if (out.putIfAbsent(key, pair.substring(eq + 1).trim()) != null) {
                throw new ArgumentException(name, name + ": '" + key + "' appears twice");
            }
        }
        return out;
    }

    /** A regular expression that must be written. */
    public Pattern regex(String name) {
        return compile(name, required(name));
    }

    /** A regular expression, or null when not written. */
    public Pattern optionalRegex(String name) {
        String v = written(name);
        return v == null ? null : compile(name, v);
    }

    /**
     * A duration as everywhere in the file ({@link Durations}): {@code 250ms}, {@code 30s}, {@code 5m}, {@code 1h},
     * {@code 1d} or ISO-8601; a unit is required. {@code otherwise} when not written.
     */
    public Duration duration(String name, Duration otherwise) {
        String v = written(name);
        if (v == null) {
            return otherwise;
        }
        try {
            return Durations.parse(v);
        } catch (IllegalArgumentException e) {
            throw new ArgumentException(name, name + ": " + e.getMessage());
        }
    }

    /** As {@link #duration}, refusing zero. */
    public Duration positiveDuration(String name, Duration otherwise) {
        Duration d = duration(name, otherwise);
        if (d != null && d.isZero() && has(name)) {
            throw new ArgumentException(name, name + ": expected a duration longer than 0, got '" + written(name) + "'");
        }
        return d;
    }

    /**
     * A size as Spring writes it: {@code 5MB}, {@code 512KB}, {@code 1GB}, {@code 100B} or bare bytes
     * (1KB = 1024 B, any case); {@code otherwise} when not written.
     */
    public long size(String name, long otherwise) {
        String v = written(name);
        if (v == null) {
            return otherwise;
        }
        Matcher m = SIZE.matcher(v);
        if (!m.matches()) {
            throw new ArgumentException(name, name + ": expected a size like 5MB, 512KB or 1024 (bytes), got '" + v
                    + "'");
        }
        long n = Long.parseLong(m.group(1));
        String unit = m.group(2) == null ? "B" : m.group(2).toUpperCase(Locale.ROOT);
        return switch (unit) {
            case "KB" -> n * 1024;
            case "MB" -> n * 1024 * 1024;
            case "GB" -> n * 1024 * 1024 * 1024;
            default -> n;
        };
    }

    /** A status, which must be written: a code 100..599 or any name of the {@link StatusCodes} table. */
    public int status(String name) {
        return status(name, required(name));
    }

    /** A list of statuses ({@code 500, BAD_GATEWAY}), in the order written; empty when not written. */
    public Set<Integer> statuses(String name) {
        Set<Integer> out = new LinkedHashSet<>();
        for (String s : list(name, List.of())) {
            out.add(status(name, s));
        }
        return out;
    }

    /** A list of status series ({@code SERVER_ERROR}), each as its first digit; {@code otherwise} when not written. */
    public Set<Integer> series(String name, Set<Integer> otherwise) {
        if (!has(name)) {
            return otherwise;
        }
        Set<Integer> out = new LinkedHashSet<>();
        for (String s : list(name)) {
            try {
                out.add(StatusCodes.series(name, s));
            } catch (IllegalArgumentException e) {
                throw new ArgumentException(name, e.getMessage());
            }
        }
        return out;
    }

    private static int status(String name, String text) {
        try {
            return StatusCodes.parse(name, text);
        } catch (IllegalArgumentException e) {
            throw new ArgumentException(name, e.getMessage());
        }
    }

    /** A header name (an RFC 9110 token), or {@code otherwise} when not written. */
    public String headerName(String name, String otherwise) {
        String v = written(name);
        return v == null ? otherwise : checkHeaderName(name, v);
    }

    /** A list of header names ({@code *}, a token too, passes: CORS reads it as any); {@code otherwise} when not written. */
    public List<String> headerNames(String name, List<String> otherwise) {
        List<String> names = list(name, otherwise);
        if (names != otherwise) {
            names.forEach(n -> checkHeaderName(name, n));
        }
        return names;
    }

    /** A list of method names (RFC 9110 tokens, upper-cased), which must be written when {@code otherwise} is null. */
    public List<String> methods(String name, List<String> otherwise) {
        List<String> items = otherwise == null ? list(name) : list(name, otherwise);
        if (items == otherwise) {
            return items;
        }
        for (String t : items) {
            if (!Tokens.isToken(t)) {
                throw new ArgumentException(name, name + ": '" + t + "' is not a method name");
            }
        }
        return items.stream().map(m -> m.toUpperCase(Locale.ROOT)).distinct().toList();
    }

    /** An RFC 9110 token that must be written; {@code what} names it for the message ({@code cookie name}). */
    public String token(String name, String what) {
        String v = required(name);
        if (!Tokens.isToken(v)) {
            throw new ArgumentException(name, name + ": '" + v + "' is not a valid " + what);
        }
        return v;
    }

    /** Checks a header name taken from an argument's value (a mapping's values, a list item). */
    public static String checkHeaderName(String argument, String value) {
        if (!Tokens.isToken(value)) {
            throw new ArgumentException(argument, argument + ": '" + value
                    + "' is not a valid header name (RFC 9110 token)");
        }
        return value;
    }

    /** The trimmed value, or null when absent or blank. */
    private String written(String name) {
        String v = args.get(name);
        return v == null || v.isBlank() ? null : v.trim();
    }

    private static Pattern compile(String name, String regex) {
        try {
            return Pattern.compile(regex);
        } catch (PatternSyntaxException e) {
            throw new ArgumentException(name, name + ": invalid regular expression '" + regex + "': "
                    + e.getDescription() + " near index " + e.getIndex());
        }
    }
}
