package io.loomgate.extension;

import java.util.Locale;
import java.util.Map;

/**
 * Parses a status written as a code ({@code 404}) or as any name of Spring's {@code HttpStatus} table
 * ({@code NOT_FOUND}), its deprecated aliases included ({@code MOVED_TEMPORARILY}, {@code REQUEST_ENTITY_TOO_LARGE}),
 * so an SCG file's statuses read as SCG reads them, and the status classes of Spring's {@code HttpStatus.Series}
 * ({@code SERVER_ERROR}). The one table: every filter reads statuses here through {@link ExtensionArgs}.
 */
public final class StatusCodes {
    private static final Map<String, Integer> NAMES = Map.ofEntries(
            Map.entry("CONTINUE", 100), Map.entry("SWITCHING_PROTOCOLS", 101), Map.entry("PROCESSING", 102),
            Map.entry("EARLY_HINTS", 103), Map.entry("CHECKPOINT", 103),
            Map.entry("OK", 200), Map.entry("CREATED", 201), Map.entry("ACCEPTED", 202),
            Map.entry("NON_AUTHORITATIVE_INFORMATION", 203), Map.entry("NO_CONTENT", 204),
            Map.entry("RESET_CONTENT", 205), Map.entry("PARTIAL_CONTENT", 206), Map.entry("MULTI_STATUS", 207),
            Map.entry("ALREADY_REPORTED", 208), Map.entry("IM_USED", 226),
            Map.entry("MULTIPLE_CHOICES", 300), Map.entry("MOVED_PERMANENTLY", 301), Map.entry("FOUND", 302),
            Map.entry("MOVED_TEMPORARILY", 302), Map.entry("USE_PROXY", 305),
            Map.entry("SEE_OTHER", 303), Map.entry("NOT_MODIFIED", 304), Map.entry("TEMPORARY_REDIRECT", 307),
            Map.entry("PERMANENT_REDIRECT", 308),
            Map.entry("BAD_REQUEST", 400), Map.entry("UNAUTHORIZED", 401), Map.entry("PAYMENT_REQUIRED", 402),
            Map.entry("FORBIDDEN", 403), Map.entry("NOT_FOUND", 404), Map.entry("METHOD_NOT_ALLOWED", 405),
            Map.entry("NOT_ACCEPTABLE", 406), Map.entry("PROXY_AUTHENTICATION_REQUIRED", 407),
            Map.entry("REQUEST_TIMEOUT", 408), Map.entry("CONFLICT", 409), Map.entry("GONE", 410),
            Map.entry("LENGTH_REQUIRED", 411), Map.entry("PRECONDITION_FAILED", 412),
            Map.entry("PAYLOAD_TOO_LARGE", 413), Map.entry("CONTENT_TOO_LARGE", 413),
            Map.entry("REQUEST_ENTITY_TOO_LARGE", 413), Map.entry("URI_TOO_LONG", 414),
            Map.entry("REQUEST_URI_TOO_LONG", 414), Map.entry("INSUFFICIENT_SPACE_ON_RESOURCE", 419),
            Map.entry("METHOD_FAILURE", 420), Map.entry("DESTINATION_LOCKED", 421),
            Map.entry("MISDIRECTED_REQUEST", 421), Map.entry("UNPROCESSABLE_CONTENT", 422),
            Map.entry("UNSUPPORTED_MEDIA_TYPE", 415), Map.entry("REQUESTED_RANGE_NOT_SATISFIABLE", 416),
            Map.entry("EXPECTATION_FAILED", 417), Map.entry("I_AM_A_TEAPOT", 418),
            Map.entry("UNPROCESSABLE_ENTITY", 422), Map.entry("LOCKED", 423), Map.entry("FAILED_DEPENDENCY", 424),
            Map.entry("TOO_EARLY", 425), Map.entry("UPGRADE_REQUIRED", 426),
            Map.entry("PRECONDITION_REQUIRED", 428), Map.entry("TOO_MANY_REQUESTS", 429),
            Map.entry("REQUEST_HEADER_FIELDS_TOO_LARGE", 431), Map.entry("UNAVAILABLE_FOR_LEGAL_REASONS", 451),
            Map.entry("INTERNAL_SERVER_ERROR", 500), Map.entry("NOT_IMPLEMENTED", 501),
            Map.entry("BAD_GATEWAY", 502), Map.entry("SERVICE_UNAVAILABLE", 503), Map.entry("GATEWAY_TIMEOUT", 504),
            Map.entry("HTTP_VERSION_NOT_SUPPORTED", 505), Map.entry("VARIANT_ALSO_NEGOTIATES", 506),
            Map.entry("INSUFFICIENT_STORAGE", 507), Map.entry("LOOP_DETECTED", 508),
            Map.entry("BANDWIDTH_LIMIT_EXCEEDED", 509), Map.entry("NOT_EXTENDED", 510), Map.entry("NETWORK_AUTHENTICATION_REQUIRED", 511));

    /** Spring's {@code HttpStatus.Series}: each class by the first digit of its codes. */
    private static final Map<String, Integer> SERIES = Map.of("INFORMATIONAL", 1, "SUCCESSFUL", 2,
            "REDIRECTION", 3, "CLIENT_ERROR", 4, "SERVER_ERROR", 5);

    private StatusCodes() {
    }

    /**
     * A status class by its {@code HttpStatus.Series} name ({@code SERVER_ERROR}) or its digit ({@code 5}), as the
     * first digit of its codes.
     *
     * @throws IllegalArgumentException naming the argument and the names it takes
     */
    public static int series(String argument, String text) {
        String t = text.trim();
        if (t.length() == 1 && t.charAt(0) >= '1' && t.charAt(0) <= '5') {
            return t.charAt(0) - '0';
        }
        Integer digit = SERIES.get(t.toUpperCase(Locale.ROOT));
        if (digit == null) {
            throw new IllegalArgumentException(argument + ": expected a status series (INFORMATIONAL, SUCCESSFUL, "
                    + "REDIRECTION, CLIENT_ERROR or SERVER_ERROR), got '" + text + "'");
        }
        return digit;
    }

    /**
     * @throws IllegalArgumentException naming the argument, when the text is neither a code 100..599 nor a name
     */
    public static int parse(String argument, String text) {
        String t = text.trim();
        if (!t.isEmpty() && t.chars().allMatch(Character::isDigit) && t.length() == 3) {
            int code = Integer.parseInt(t);
            if (code >= 100 && code <= 599) {
                return code;
            }
        }
        Integer named = NAMES.get(t.toUpperCase(Locale.ROOT));
        if (named != null) {
            return named;
        }
        String hint = SERIES.containsKey(t.toUpperCase(Locale.ROOT))
                ? " (" + t + " is a series of statuses: write it under series)" : "";
        throw new IllegalArgumentException(argument
                + ": expected a status code 100..599 or a name like NOT_FOUND, got '" + text + "'" + hint);
    }
}
