package io.loomgate.route;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/** Reads and checks built-in predicate arguments; every failure is an IllegalArgumentException naming the argument. */
final class PredicateArgs {
    private final Map<String, String> args;

    PredicateArgs(Map<String, String> args) {
        this.args = args;
    }

    String required(String name) {
        String v = args.get(name);
        if (v == null || v.isBlank()) {
            throw new IllegalArgumentException("missing argument '" + name + "'");
        }
        return v.trim();
    }

    /**
     * A comma-separated list of at least one non-empty item. Commas inside braces do not separate, so a pattern
     * variable's regex keeps its quantifier: {@code /users/{id:[0-9]{1,3}}} is one item.
     */
    List<String> list(String name) {
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
                    throw new IllegalArgumentException(name + ": empty item in '" + text + "'");
                }
                items.add(t);
                start = i + 1;
            }
        }
        return items;
    }

    boolean bool(String name, boolean otherwise) {
        String v = args.get(name);
        if (v == null || v.isBlank()) {
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

    int intAtLeast(String name, int min) {
        String v = required(name);
        try {
            int n = Integer.parseInt(v);
            if (n >= min) {
                return n;
            }
        } catch (NumberFormatException e) {
            // the message below says what was expected
        }
        throw new IllegalArgumentException(name + ": expected an integer >= " + min + ", got '" + v + "'");
    }

    /** An optional regular expression, matched against whole values; null when not written. */
    Pattern optionalRegex(String name) {
        String v = args.get(name);
        if (v == null || v.isEmpty()) {
            return null;
        }
        try {
            return Pattern.compile(v);
        } catch (PatternSyntaxException e) {
            throw new IllegalArgumentException(name + ": invalid regular expression '" + v + "': "
                    + e.getDescription() + " near index " + e.getIndex());
        }
    }

    static boolean isToken(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    || "!#$%&'*+-.^_`|~".indexOf(c) >= 0;
            if (!ok) {
                return false;
            }
        }
        return !s.isEmpty();
    }
}
