package io.loomgate.resilience;

import io.loomgate.extension.StatusCodes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads the resilience filters' argument values: whole numbers in a range, booleans, comma lists, statuses (a code or
 * a Spring {@code HttpStatus} name), durations ({@code 10ms}, {@code 2s}) and sizes ({@code 64KB}, {@code 1MB}). Each
 * failure names the argument and says what was expected, for the config error that wraps it.
 */
final class ArgText {
    private static final Pattern DURATION = Pattern.compile("(\\d+)\\s*(ms|s|m|h)");
    private static final Pattern SIZE = Pattern.compile("(\\d+)\\s*(B|KB|MB|GB)?", Pattern.CASE_INSENSITIVE);

    private ArgText() {
    }

    static int intIn(String name, String text, int min, int max) {
        try {
            int n = Integer.parseInt(text.trim());
            if (n >= min && n <= max) {
                return n;
            }
        } catch (NumberFormatException e) {
            // said below
        }
        throw new IllegalArgumentException(name + ": expected a whole number from " + min + " to " + max + ", got '"
                + text + "'");
    }

    static boolean bool(String name, String text) {
        return switch (text.trim().toLowerCase(Locale.ROOT)) {
            case "true" -> true;
            case "false" -> false;
            default -> throw new IllegalArgumentException(name + ": expected true or false, got '" + text + "'");
        };
    }

    static List<String> list(String text) {
        List<String> out = new ArrayList<>();
        if (text != null) {
            for (String part : text.split(",")) {
                if (!part.isBlank()) {
                    out.add(part.trim());
                }
            }
        }
        return out;
    }

    static int status(String name, String text) {
        return StatusCodes.parse(name, text);
    }

    static Duration duration(String name, String text) {
        Matcher m = DURATION.matcher(text.trim());
        if (m.matches()) {
            long n = Long.parseLong(m.group(1));
            if (n <= 86_400_000L) {
                return switch (m.group(2)) {
                    case "ms" -> Duration.ofMillis(n);
                    case "s" -> Duration.ofSeconds(n);
                    case "m" -> Duration.ofMinutes(n);
                    default -> Duration.ofHours(n);
                };
            }
        }
        throw new IllegalArgumentException(name + ": expected a duration like 10ms, 2s or 1m, got '" + text + "'");
    }

    static long size(String name, String text) {
        Matcher m = SIZE.matcher(text.trim());
        if (m.matches() && m.group(1).length() <= 12) {
            long n = Long.parseLong(m.group(1));
            String unit = m.group(2) == null ? "B" : m.group(2).toUpperCase(Locale.ROOT);
            return switch (unit) {
                case "KB" -> n * 1024;
                case "MB" -> n * 1024 * 1024;
                case "GB" -> n * 1024 * 1024 * 1024;
                default -> n;
            };
        }
        throw new IllegalArgumentException(name + ": expected a size like 65536, 64KB or 1MB, got '" + text + "'");
    }
}
