package io.loomgate.extension;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * Reads and checks the arguments of one predicate or filter; every failure is an {@link IllegalArgumentException}
 * whose message names the argument, which configuration prefixes with the file, line and route.
 *
 * <p>One rule for every reader but {@link #present}: an argument absent or written blank counts as not written,
 * and a written one is trimmed (white space around a name, number, pattern or path is never meaningful, and YAML
 * keeps it only inside quotes). {@link #present} is for values where white space is content, such as header values.
 */
public final class ExtensionArgs {
    private final Map<String, String> args;

    /** @param args the bound arguments a factory's {@code create} receives */
    public ExtensionArgs(Map<String, String> args) {
        this.args = args;
    }

    /** Written and not blank; trimmed. */
    public String required(String name) {
        String v = written(name);
        if (v == null) {
            throw new IllegalArgumentException("missing argument '" + name + "'");
        }
        return v;
    }

    /** Must be written, but may be empty ({@code value: ""}); as written, white space included. */
    public String present(String name) {
        String v = args.get(name);
        if (v == null) {
            throw new IllegalArgumentException("missing argument '" + name + "'");
        }
        return v;
    }

    /** Trimmed, or {@code otherwise} when not written. */
    public String optional(String name, String otherwise) {
        String v = written(name);
        return v == null ? otherwise : v;
    }

    public int intAtLeast(String name, int min) {
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

    /** {@code true} or {@code false} in any case, or {@code otherwise} when not written. */
    public boolean bool(String name, boolean otherwise) {
        String v = written(name);
        if (v == null) {
            return otherwise;
        }
        if (v.equalsIgnoreCase("true")) {
            return true;
        }
        if (v.equalsIgnoreCase("false")) {
            return false;
        }
        throw new IllegalArgumentException(name + ": expected true or false, got '" + v + "'");
    }

    /**
     * A comma-separated list of at least one non-empty item. Commas inside braces do not separate, so a pattern
     * variable's regex keeps its quantifier: {@code /users/{id:[0-9]{1,3}}} is one item.
     */
    public List<String> list(String name) {
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

    /** A regular expression that must be written. */
    public Pattern regex(String name) {
        return compile(name, required(name));
    }

    /** A regular expression, or null when not written. */
    public Pattern optionalRegex(String name) {
        String v = written(name);
        return v == null ? null : compile(name, v);
    }

    /** The trimmed value, or null when absent or blank. */
    private String written(String name) {
        String v = args.get(name);
        return v == null || v.isBlank() ? null : v.trim();
    }

    private static Pattern compile(String name, String regex) {
        try {
            return Pattern.compile(regex);
        } catch (PatternSyntaxException e) {
            throw new IllegalArgumentException(name + ": invalid regular expression '" + regex + "': "
                    + e.getDescription() + " near index " + e.getIndex());
        }
    }
}
