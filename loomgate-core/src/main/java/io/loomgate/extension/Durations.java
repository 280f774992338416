package io.loomgate.extension;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Parses durations as Spring Boot writes them: a whole number and a unit, {@code 250us}, {@code 500ms}, {@code 2s},
 * {@code 1m}, {@code 1h}, {@code 1d}, or ISO-8601 ({@code PT1.5S}). Unlike Spring, a bare number is refused: with no
 * unit it is too easy to mean seconds and get milliseconds.
 */
public final class Durations {
    private static final Pattern SIMPLE = Pattern.compile("(\\d+)\\s*(us|ms|s|m|h|d)");

    private Durations() {
    }

    /**
     * Every duration must fit a {@code long} of nanoseconds, because that is how deadlines are computed
     * ({@code System.nanoTime() + timeout.toNanos()}): a longer one would pass here and throw at run time.
     *
     * @throws IllegalArgumentException saying what was expected
     */
    public static Duration parse(String text) {
        Duration d = parseUnchecked(text);
        try {
            d.toNanos();
        } catch (ArithmeticException e) {
            throw tooLarge(text);
        }
        return d;
    }

    private static IllegalArgumentException tooLarge(String text) {
        return new IllegalArgumentException("duration '" + text + "' is too large (at most 106751d, about 292 years)");
    }

    private static Duration parseUnchecked(String text) {
        String t = text.trim();
        Matcher m = SIMPLE.matcher(t);
        if (m.matches()) {
            try {
                long n = Long.parseLong(m.group(1));
                return switch (m.group(2)) {
                    case "us" -> Duration.ofNanos(Math.multiplyExact(n, 1000L));
                    case "ms" -> Duration.ofMillis(n);
                    case "s" -> Duration.ofSeconds(n);
                    case "m" -> Duration.ofMinutes(n);
                    case "h" -> Duration.ofHours(n);
                    default -> Duration.ofDays(n);
                };
            } catch (ArithmeticException | NumberFormatException e) {
                throw tooLarge(text);
            }
        }
        if (t.matches("\\d+")) {
            throw new IllegalArgumentException("a duration needs a unit (us, ms, s, m, h or d), like 2s or 500ms; got '"
                    + text + "'");
        }
        if (t.startsWith("P") || t.startsWith("p")) {
            try {
                Duration d = Duration.parse(t);
                if (!d.isNegative()) {
                    return d;
                }
            } catch (DateTimeParseException e) {
                // the message below says what was expected
            }
        }
        throw new IllegalArgumentException("expected a duration like 500ms, 2s, 1m or 1h, got '" + text + "'");
    }
}
