package io.loomgate.route;

import java.time.Clock;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeParseException;
import java.util.List;

/**
 * Spring Cloud Gateway's {@code After}, {@code Before} and {@code Between}: holds while the clock is strictly after
 * {@code after} and strictly before {@code before} (either may be open). Times are written as SCG parses them: an
 * ISO zoned date-time ({@code 2017-01-20T17:42:47.789-07:00[America/Denver]}) or epoch milliseconds.
 *
 * @param after  null: no lower bound
 * @param before null: no upper bound
 */
record TimeWindowPredicate(Instant after, Instant before, Clock clock) implements RoutePredicate {
    static final PredicateFactory AFTER = new BuiltinPredicateFactory("After", List.of("datetime"), false,
            args -> new TimeWindowPredicate(parse("datetime", args.required("datetime")), null, Clock.systemUTC()));
    static final PredicateFactory BEFORE = new BuiltinPredicateFactory("Before", List.of("datetime"), false,
            args -> new TimeWindowPredicate(null, parse("datetime", args.required("datetime")), Clock.systemUTC()));
    static final PredicateFactory BETWEEN = new BuiltinPredicateFactory("Between", List.of("datetime1", "datetime2"),
            false, args -> between(parse("datetime1", args.required("datetime1")),
                    parse("datetime2", args.required("datetime2"))));

    private static TimeWindowPredicate between(Instant first, Instant second) {
        if (!first.isBefore(second)) {
            // SCG asserts the same: a window that ends before it starts never holds, which is surely a mistake.
            throw new IllegalArgumentException("datetime1 (" + first + ") must be before datetime2 (" + second + ")");
        }
        return new TimeWindowPredicate(first, second, Clock.systemUTC());
    }

    /** As SCG's {@code StringToZonedDateTimeConverter}: epoch milliseconds, else an ISO zoned date-time. */
    static Instant parse(String name, String text) {
        try {
            return Instant.ofEpochMilli(Long.parseLong(text));
        } catch (NumberFormatException e) {
            // not a number: a date-time
        }
        try {
            return ZonedDateTime.parse(text).toInstant();
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException(name + ": expected a zoned date-time like "
                    + "2017-01-20T17:42:47.789-07:00[America/Denver] or epoch milliseconds, got '" + text + "'");
        }
    }

    @Override
    public boolean test(PredicateContext context) {
        Instant now = clock.instant();
        return (after == null || now.isAfter(after)) && (before == null || now.isBefore(before));
    }
}
