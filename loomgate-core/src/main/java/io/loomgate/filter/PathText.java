package io.loomgate.filter;

/** Checks path text written in configuration (prefixes, templates, replacements) before it reaches a request line. */
final class PathText {
    private PathText() {
    }

    /** A path or path template: starts with '/', no query, fragment, whitespace or control characters. */
    static String absolutePath(String argument, String text) {
        if (!text.startsWith("/")) {
            throw new IllegalArgumentException(argument + ": expected a path starting with '/', got '" + text + "'");
        }
        if (text.indexOf('?') >= 0 || text.indexOf('#') >= 0) {
            throw new IllegalArgumentException(argument + ": a path must not contain '?' or '#', got '" + text + "'");
        }
        return requestLineSafe(argument, text);
    }

    /** Text that may go into a request target: no whitespace, controls or non-ASCII (RFC 9112 §3.2). */
    static String requestLineSafe(String argument, String text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c <= 0x20 || c >= 0x7f) {
                throw new IllegalArgumentException(argument + ": must not contain whitespace, control or non-ASCII "
                        + "characters (found U+" + String.format("%04X", (int) c) + " in '" + text + "')");
            }
        }
        return text;
    }
}
