package io.loomgate.filter;

import java.util.Map;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/** Reads and checks built-in filter arguments; every failure is an IllegalArgumentException naming the argument. */
final class FilterArgs {
    private final Map<String, String> args;

    FilterArgs(Map<String, String> args) {
        this.args = args;
    }

    String required(String name) {
        String v = args.get(name);
        if (v == null || v.isEmpty()) {
            throw new IllegalArgumentException("missing argument '" + name + "'");
        }
        return v;
    }

    /** Must be written, but may be empty ({@code value: ""}). */
    String present(String name) {
        String v = args.get(name);
        if (v == null) {
            throw new IllegalArgumentException("missing argument '" + name + "'");
        }
        return v;
    }

    String optional(String name, String otherwise) {
        String v = args.get(name);
        return v == null || v.isEmpty() ? otherwise : v;
    }

    int intAtLeast(String name, int min) {
        String v = required(name);
        try {
            int n = Integer.parseInt(v.trim());
            if (n >= min) {
                return n;
            }
        } catch (NumberFormatException e) {
            // the message below says what was expected
        }
        throw new IllegalArgumentException(name + ": expected an integer >= " + min + ", got '" + v + "'");
    }

    boolean bool(String name, boolean otherwise) {
        String v = optional(name, null);
        if (v == null) {
            return otherwise;
        }
        if (v.trim().equalsIgnoreCase("true")) {
            return true;
        }
        if (v.trim().equalsIgnoreCase("false")) {
            return false;
        }
        throw new IllegalArgumentException(name + ": expected true or false, got '" + v + "'");
    }

    Pattern regex(String name) {
        String v = required(name);
        try {
            return Pattern.compile(v);
        } catch (PatternSyntaxException e) {
            throw new IllegalArgumentException(name + ": invalid regular expression '" + v + "': "
                    + e.getDescription() + " near index " + e.getIndex());
        }
    }
}
