package io.loomgate.filter;

import io.loomgate.extension.ExtensionArgs;
import java.util.Locale;
import java.util.Set;

/**
 * Checks header names and values that come from configuration, so a filter can never write a malformed or
 * smuggling field (RFC 9110 §5.1 token names, §5.5 field values without CR, LF or NUL).
 */
final class HeaderFields {
    /** Framing belongs to the proxy: a filter that changed these would desynchronise the body relay. */
    private static final Set<String> FRAMING = Set.of("content-length", "transfer-encoding");

    private HeaderFields() {
    }

    static String name(String argument, String name) {
        ExtensionArgs.checkHeaderName(argument, name);
        if (FRAMING.contains(name.toLowerCase(Locale.ROOT))) {
            throw new IllegalArgumentException(argument + ": " + name
                    + " cannot be changed by a filter; the proxy sets message framing");
        }
        return name;
    }

    static String notHost(String argument, String name, String why) {
        if (name.equalsIgnoreCase("Host")) {
            throw new IllegalArgumentException(argument + ": Host cannot be changed this way; " + why);
        }
        return name;
    }

    /** Refuses control characters other than tab (CR, LF and NUL would split or end the head) and non-Latin-1. */
    static String value(String argument, String value) {
        String problem = problem(value);
        if (problem != null) {
            throw new IllegalArgumentException(argument + ": header value " + problem);
        }
        return value;
    }

    /** What is wrong with a header value, or null. */
    static String problem(String value) {
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c == '\r' || c == '\n' || c == 0) {
                return "must not contain CR, LF or NUL";
            }
            if ((c < 0x20 && c != '\t') || c == 0x7f) {
                return "must not contain control characters (found U+" + String.format("%04X", (int) c) + ")";
            }
            if (c > 0xff) {
                return "must be ISO-8859-1 text (found U+" + String.format("%04X", (int) c) + ")";
            }
        }
        return null;
    }
}
