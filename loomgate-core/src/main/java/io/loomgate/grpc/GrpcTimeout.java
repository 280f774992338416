package io.loomgate.grpc;

/**
 * The {@code grpc-timeout} request field (PROTOCOL-HTTP2.md): {@code TimeoutValue TimeoutUnit}, the value an ASCII
 * integer of at most 8 digits, the unit one of {@code H M S m u n} (hours, minutes, seconds, milliseconds,
 * microseconds, nanoseconds). Nothing else is accepted: no sign, no spaces, no other unit.
 */
public final class GrpcTimeout {
    /** At most 8 digits (PROTOCOL-HTTP2.md). */
    public static final int MAX_DIGITS = 8;
    private static final long MAX_VALUE = 99_999_999L;

    private GrpcTimeout() {
    }

    /**
     * The timeout in nanoseconds; {@link Long#MAX_VALUE} when it is longer than a {@code long} of nanoseconds holds
     * (about 292 years: 99999999H is allowed and means "no deadline" in practice). A value of 0 is accepted (the
     * deadline has already passed), as grpc-go does, although the protocol says "positive".
     *
     * @throws IllegalArgumentException naming what is wrong with {@code value}
     */
    public static long parseNanos(String value) {
        int n = value.length();
        if (n < 2 || n > MAX_DIGITS + 1) {
            throw new IllegalArgumentException(n < 2 ? "needs digits and a unit (H, M, S, m, u or n)"
                    : "more than " + MAX_DIGITS + " digits");
        }
        long unitNanos = switch (value.charAt(n - 1)) {
            case 'H' -> 3_600_000_000_000L;
            case 'M' -> 60_000_000_000L;
            case 'S' -> 1_000_000_000L;
            case 'm' -> 1_000_000L;
            case 'u' -> 1_000L;
            case 'n' -> 1L;
            default -> throw new IllegalArgumentException("unit '" + value.charAt(n - 1)
                    + "' is not one of H, M, S, m, u, n");
        };
        long amount = 0;
        for (int i = 0; i < n - 1; i++) {
            char c = value.charAt(i);
            if (c < '0' || c > '9') {
                throw new IllegalArgumentException("'" + c + "' is not a digit");
            }
            amount = amount * 10 + (c - '0');
        }
        return amount > Long.MAX_VALUE / unitNanos ? Long.MAX_VALUE : amount * unitNanos;
    }

    /**
     * {@code nanos} written as a {@code grpc-timeout} value in the finest unit that fits 8 digits, rounded down
     * (an origin told slightly less time ends before the gateway's deadline, never after); at least {@code 1n}.
     */
    public static String format(long nanos) {
        long v = Math.max(1, nanos);
        if (v <= MAX_VALUE) {
            return v + "n";
        }
        long[] units = {1_000L, 1_000_000L, 1_000_000_000L, 60_000_000_000L, 3_600_000_000_000L};
        char[] names = {'u', 'm', 'S', 'M', 'H'};
        for (int i = 0; i < units.length; i++) {
            long amount = v / units[i];
            if (amount <= MAX_VALUE) {
                return amount + String.valueOf(names[i]);
            }
        }
        return MAX_VALUE + "H";
    }
}
