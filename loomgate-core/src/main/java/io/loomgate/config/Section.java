package io.loomgate.config;

import io.loomgate.extension.Durations;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * One YAML mapping read as a configuration section: its keys are checked against the known ones (with a
 * did-you-mean for typos), looked up with Spring Boot's relaxed binding ({@code preserve-host}, {@code preserveHost}
 * and {@code preserve_host} are the same key), and read as typed values whose errors name the file, line and key.
 *
 * <p>Two ways to name a field in messages: a dotted section ({@code server.port: expected ...}) or a context such as a
 * route ({@code route 'users': timeout: expected ...}).
 */
final class Section {
    private final String file;
    private final String name;
    private final boolean dotted;
    private final int line;
    private final Map<String, YamlNode.Entry> entries;

    private Section(String file, String name, boolean dotted, int line, Map<String, YamlNode.Entry> entries) {
        this.file = file;
        this.name = name;
        this.dotted = dotted;
        this.line = line;
        this.entries = entries;
    }

    /** A section named by its dotted path ({@code server}, or empty for the root). Null or nothing reads as empty. */
    static Section dotted(String file, String path, YamlNode node, int lineIfAbsent, List<String> known)
            throws ConfigException {
        return of(file, path, true, node, lineIfAbsent, known);
    }

    /** A section named by a context, such as {@code route 'users'} or {@code routes[2]}. */
    static Section context(String file, String context, YamlNode node, List<String> known) throws ConfigException {
        return of(file, context, false, node, node.line(), known);
    }

    private static Section of(String file, String name, boolean dotted, YamlNode node, int lineIfAbsent,
                              List<String> known) throws ConfigException {
        if (node == null || node instanceof YamlNode.Scalar s && s.isNull()) {
            return new Section(file, name, dotted, node == null ? lineIfAbsent : node.line(), Map.of());
        }
        if (!(node instanceof YamlNode.Mapping mapping)) {
            throw new ConfigException(file, node.line(), name, "expected a mapping of " + String.join(", ", known)
                    + "; got " + node.describe());
        }
        Map<String, String> canonicalKnown = new LinkedHashMap<>();
        known.forEach(k -> canonicalKnown.put(canonical(k), k));
        Map<String, YamlNode.Entry> entries = new LinkedHashMap<>();
        for (YamlNode.Entry e : mapping.entries()) {
            String k = canonicalKnown.get(canonical(e.key()));
            if (k == null) {
                throw new ConfigException(file, e.line(), name, "unknown key '" + e.key() + "'"
                        + unknownKeyHint(e.key(), known));
            }
            YamlNode.Entry before = entries.putIfAbsent(k, e);
            if (before != null) {
                throw new ConfigException(file, e.line(), name, "'" + e.key() + "' repeats '" + before.key()
                        + "' (line " + before.line() + ")");
            }
        }
        return new Section(file, name, dotted, mapping.line(), entries);
    }

    private static String unknownKeyHint(String key, List<String> known) {
        String hint = DidYouMean.hint(key, known);
        if (!hint.isEmpty()) {
            return hint;
        }
        return " (expected one of: " + String.join(", ", known) + ")";
    }

    /** Spring Boot's uniform form: lower case without '-' and '_'. */
    static String canonical(String key) {
        return key.replace("-", "").replace("_", "").toLowerCase(Locale.ROOT);
    }

    int line() {
        return line;
    }

    String file() {
        return file;
    }

    boolean has(String key) {
        return entries.containsKey(key);
    }

    YamlNode node(String key) {
        YamlNode.Entry e = entries.get(key);
        return e == null ? null : e.value();
    }

    /** The line of the key, or of the section when the key is absent. */
    int lineOf(String key) {
        YamlNode.Entry e = entries.get(key);
        return e == null ? line : e.value().line();
    }

    /** The name of a nested section under this one's key, for messages. */
    String childName(String key) {
        if (dotted) {
            return name.isEmpty() ? key : name + "." + key;
        }
        return name + " " + key;
    }

    /** The problem at a key, named the section's way. */
    ConfigException error(String key, int atLine, String problem) {
        if (dotted) {
            return new ConfigException(file, atLine, name.isEmpty() ? key : name + "." + key, problem);
        }
        return new ConfigException(file, atLine, name, key + ": " + problem);
    }

    ConfigException error(String key, String problem) {
        return error(key, lineOf(key), problem);
    }

    /** A non-empty string, or the default when absent. */
    String string(String key, String otherwise) throws ConfigException {
        YamlNode n = node(key);
        if (n == null) {
            return otherwise;
        }
        String s = scalar(key, n, "a string");
        if (s.isBlank()) {
            throw error(key, "expected a non-empty string");
        }
        return s.trim();
    }

    int integer(String key, int otherwise, int min, int max) throws ConfigException {
        YamlNode n = node(key);
        if (n == null) {
            return otherwise;
        }
        String expected = min == Integer.MIN_VALUE ? "an integer"
                : max == Integer.MAX_VALUE ? "an integer >= " + min : "an integer " + min + ".." + max;
        String s = scalar(key, n, expected);
        try {
            int v = Integer.parseInt(s.trim());
            if (v >= min && v <= max) {
                return v;
            }
        } catch (NumberFormatException e) {
            // the message below says what was expected
        }
        throw error(key, "expected " + expected + ", got " + n.describe());
    }

    boolean bool(String key, boolean otherwise) throws ConfigException {
        YamlNode n = node(key);
        if (n == null) {
            return otherwise;
        }
        String s = scalar(key, n, "true or false").trim();
        if (s.equalsIgnoreCase("true") || (n instanceof YamlNode.Scalar sc && sc.isBool() && isYes(s))) {
            return true;
        }
        if (s.equalsIgnoreCase("false") || (n instanceof YamlNode.Scalar sc && sc.isBool() && isNo(s))) {
            return false;
        }
        throw error(key, "expected true or false, got " + n.describe());
    }

    private static boolean isYes(String s) {
        return s.equalsIgnoreCase("yes") || s.equalsIgnoreCase("on") || s.equalsIgnoreCase("y");
    }

    private static boolean isNo(String s) {
        return s.equalsIgnoreCase("no") || s.equalsIgnoreCase("off") || s.equalsIgnoreCase("n");
    }

    /** A duration, longer than zero unless {@code zeroAllowed}. */
    Duration duration(String key, Duration otherwise, boolean zeroAllowed) throws ConfigException {
        YamlNode n = node(key);
        if (n == null) {
            return otherwise;
        }
        String s = scalar(key, n, "a duration like 500ms, 2s or 1m");
        Duration d;
        try {
            d = Durations.parse(s);
        } catch (IllegalArgumentException e) {
            throw error(key, e.getMessage());
        }
        if (d.isZero() && !zeroAllowed) {
            throw error(key, "expected a duration longer than 0, got " + n.describe());
        }
        return d;
    }

    /** The scalar items of a list (absent: empty); each with its line. */
    List<YamlNode.Scalar> scalarList(String key) throws ConfigException {
        YamlNode n = node(key);
        if (n == null || n instanceof YamlNode.Scalar s && s.isNull()) {
            return List.of();
        }
        if (!(n instanceof YamlNode.Sequence seq)) {
            throw error(key, "expected a list, got " + n.describe());
        }
        List<YamlNode.Scalar> out = new ArrayList<>();
        for (int i = 0; i < seq.items().size(); i++) {
            YamlNode item = seq.items().get(i);
            if (!(item instanceof YamlNode.Scalar s) || s.isNull()) {
                throw error(key + "[" + i + "]", item.line(), "expected a string, got " + item.describe());
            }
            out.add(s);
        }
        return out;
    }

    /** The items of a list (absent or nothing: empty). */
    List<YamlNode> list(String key) throws ConfigException {
        YamlNode n = node(key);
        if (n == null || n instanceof YamlNode.Scalar s && s.isNull()) {
            return List.of();
        }
        if (!(n instanceof YamlNode.Sequence seq)) {
            throw error(key, "expected a list, got " + n.describe());
        }
        return seq.items();
    }

    private String scalar(String key, YamlNode n, String expected) throws ConfigException {
        if (n instanceof YamlNode.Scalar s && !s.isNull()) {
            return s.text();
        }
        throw error(key, "expected " + expected + ", got " + n.describe());
    }
}
