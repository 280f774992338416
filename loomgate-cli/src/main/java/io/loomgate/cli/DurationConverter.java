package io.loomgate.cli;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;

/**
 * Reads durations as people write them on a command line: {@code 250ms}, {@code 10s}, {@code 1.5s}, {@code 2m},
 * {@code 1h}.
 */
public final class DurationConverter implements CommandLine.ITypeConverter<Duration> {
    private static final Pattern FORM = Pattern.compile("(\\d+(?:\\.\\d+)?)(ms|s|m|h)");

    @Override
    public Duration convert(String text) {
        return parse(text);
    }

    /** @throws CommandLine.TypeConversionException naming the accepted forms */
    public static Duration parse(String text) {
        Matcher m = FORM.matcher(text.trim());
        if (!m.matches()) {
            throw new CommandLine.TypeConversionException(
                    "expected a duration like 250ms, 10s, 1.5s, 2m or 1h, got '" + text + "'");
        }
        double n = Double.parseDouble(m.group(1));
        double millis = switch (m.group(2)) {
            case "ms" -> n;
            case "s" -> n * 1_000;
            case "m" -> n * 60_000;
            default -> n * 3_600_000;
        };
        return Duration.ofNanos(Math.round(millis * 1_000_000));
    }
}
