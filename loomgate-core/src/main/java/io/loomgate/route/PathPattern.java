package io.loomgate.route;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * A Spring-style pattern over separator-delimited segments: the path {@code /users/{id}/**} (separator '/') or the
 * host {@code {sub}.example.com} (separator '.'). Immutable and thread-safe.
 *
 * <ul>
 * <li>{@code **} as a whole segment: any number of segments, including none ({@code /users/**} matches
 * {@code /users});</li>
 * <li>{@code *} as a whole segment: exactly one non-empty segment; inside a segment ({@code *.png}): any
 * characters;</li>
 * <li>{@code ?}: one character;</li>
 * <li>{@code {name}}: one non-empty segment (or the rest of it), bound as a variable; {@code {name:regex}} binds
 * only what the Java regex matches whole;</li>
 * <li>{@code {*name}}, a path's last segment: the rest of the path, zero or more segments, bound with its leading
 * '/' ({@code /a/b}, or empty for none), as Spring's PathPattern does;</li>
 * <li>anything else matches itself, exactly (hosts ignore case, paths do not). Nothing is decoded: {@code %2F} is
 * three characters inside one segment.</li>
 * </ul>
 */
final class PathPattern {
    private final String text;
    private final char separator;
    private final boolean ignoreCase;
    private final List<Element> elements;
    private final List<String> variables;
    /** The pattern is {@code **} alone: any value (after the leading '/' of a path) matches, binding nothing. */
    private final boolean matchesAll;

    private PathPattern(String text, char separator, boolean ignoreCase, List<Element> elements,
                        List<String> variables) {
        this.text = text;
        this.separator = separator;
        this.ignoreCase = ignoreCase;
        this.elements = elements;
        this.variables = variables;
        this.matchesAll = elements.size() == 1 && elements.get(0) instanceof AnySegments && variables.isEmpty();
    }

    /** A path pattern; it must start with '/'. */
    static PathPattern path(String text) {
        if (!text.startsWith("/")) {
            throw new IllegalArgumentException("path pattern must start with '/', got '" + text + "'");
        }
        return compile(text, text.substring(1), '/', false);
    }

    /** A host pattern, compared ignoring case; it must not carry a port (the port is ignored when matching). */
    static PathPattern host(String text) {
        boolean ipv6 = text.startsWith("[") && text.endsWith("]");
        if (text.isEmpty() || text.indexOf('/') >= 0 || (!ipv6 && text.indexOf(':') >= 0 && text.indexOf('{') < 0)) {
            throw new IllegalArgumentException("expected a host pattern like **.example.com (no scheme, path or port),"
                    + " got '" + text + "'");
        }
        return compile(text, text, '.', true);
    }

    /** The variables a match binds, in order, or null when the value does not match. */
    Map<String, String> match(String value) {
        String v = ignoreCase ? value.toLowerCase(Locale.ROOT) : value;
        if (separator == '/') {
            if (!v.startsWith("/")) {
                return null;
            }
            if (matchesAll) {
                return Map.of(); // "/**": every path, nothing bound; no need to cut or split it
            }
            v = v.substring(1);
        } else if (matchesAll) {
            return Map.of();
        }
        String[] segments = split(v, separator);
        String[] bound = new String[variables.size()];
        if (!matchFrom(0, segments, 0, bound)) {
            return null;
        }
        if (bound.length == 0) {
            return Map.of();
        }
        Map<String, String> result = new LinkedHashMap<>();
        for (int i = 0; i < bound.length; i++) {
            result.put(variables.get(i), bound[i]);
        }
        return result;
    }

    List<String> variableNames() {
        return variables;
    }

    /**
     * Backtracks only at {@code **}: it tries the fewest segments first. Every element on the successful path writes
     * its variables last, so values left by abandoned attempts are always overwritten.
     */
    private boolean matchFrom(int e, String[] segments, int s, String[] bound) {
        if (e == elements.size()) {
            return s == segments.length;
        }
        Element element = elements.get(e);
        if (element instanceof RestSegments rest) {
            StringBuilder captured = new StringBuilder();
            for (int k = s; k < segments.length; k++) {
                captured.append('/').append(segments[k]);
            }
            bound[rest.variableIndex()] = captured.toString();
            return true;
        }
        if (element instanceof AnySegments) {
            for (int k = s; k <= segments.length; k++) {
                if (matchFrom(e + 1, segments, k, bound)) {
                    return true;
                }
            }
            return false;
        }
        if (s == segments.length) {
            return false;
        }
        if (element instanceof Literal literal) {
            return literal.text.equals(segments[s]) && matchFrom(e + 1, segments, s + 1, bound);
        }
        SegmentRegex regex = (SegmentRegex) element;
        var m = regex.pattern.matcher(segments[s]);
        if (!m.matches()) {
            return false;
        }
        for (int i = 0; i < regex.variableIndexes.length; i++) {
            bound[regex.variableIndexes[i]] = m.group(regex.groups[i]);
        }
        return matchFrom(e + 1, segments, s + 1, bound);
    }

    private static PathPattern compile(String text, String body, char separator, boolean ignoreCase) {
        List<Element> elements = new ArrayList<>();
        List<String> variables = new ArrayList<>();
        List<String> segments = splitPattern(text, body, separator);
        for (int i = 0; i < segments.size(); i++) {
            String segment = segments.get(i);
            if (separator == '/' && segment.startsWith("{*") && segment.endsWith("}")) {
                if (i != segments.size() - 1) {
                    throw new IllegalArgumentException("'" + segment + "' must be the last segment in pattern '"
                            + text + "'");
                }
                String name = segment.substring(2, segment.length() - 1);
                checkVariable(text, name, variables);
                elements.add(new RestSegments(variables.size()));
                variables.add(name);
                continue;
            }
            elements.add(element(text, segment, variables, ignoreCase));
        }
        return new PathPattern(text, separator, ignoreCase, List.copyOf(elements), List.copyOf(variables));
    }

    /** Splits on the separator, except inside {...} where a regex may contain it. */
    private static List<String> splitPattern(String text, String body, char separator) {
        List<String> segments = new ArrayList<>();
        int depth = 0;
        int start = 0;
        for (int i = 0; i < body.length(); i++) {
            char c = body.charAt(i);
            if (c == '\\' && depth > 0) {
                i++;
            } else if (c == '{') {
                depth++;
            } else if (c == '}') {
                depth--;
                if (depth < 0) {
                    throw new IllegalArgumentException("unbalanced '}' in pattern '" + text + "'");
                }
            } else if (c == separator && depth == 0) {
                segments.add(body.substring(start, i));
                start = i + 1;
            }
        }
        if (depth != 0) {
            throw new IllegalArgumentException("unclosed '{' in pattern '" + text + "'");
        }
        segments.add(body.substring(start));
        return segments;
    }

    private static Element element(String text, String segment, List<String> variables, boolean ignoreCase) {
        if (segment.equals("**")) {
            return new AnySegments();
        }
        if (segment.contains("**") && !segment.contains("{")) {
            throw new IllegalArgumentException("'**' must be a whole segment in pattern '" + text + "'");
        }
        if (segment.indexOf('*') < 0 && segment.indexOf('?') < 0 && segment.indexOf('{') < 0) {
            return new Literal(ignoreCase ? segment.toLowerCase(Locale.ROOT) : segment);
        }
        if (segment.equals("*")) {
            return new SegmentRegex(Pattern.compile(".+"), new int[0], new int[0]);
        }
        return segmentRegex(text, segment, variables, ignoreCase);
    }

    private static SegmentRegex segmentRegex(String text, String segment, List<String> variables,
                                             boolean ignoreCase) {
        StringBuilder regex = new StringBuilder();
        List<Integer> indexes = new ArrayList<>();
        List<Integer> groups = new ArrayList<>();
        int group = 1;
        StringBuilder literal = new StringBuilder();
        int i = 0;
        while (i < segment.length()) {
            char c = segment.charAt(i);
            if (c == '{') {
                int close = closingBrace(segment, i);
                String inside = segment.substring(i + 1, close);
                int colon = inside.indexOf(':');
                String name = colon < 0 ? inside : inside.substring(0, colon);
                String sub = colon < 0 ? ".+" : inside.substring(colon + 1);
                checkVariable(text, name, variables);
                int subGroups = groupCount(text, sub);
                flush(regex, literal, ignoreCase);
                regex.append('(').append(sub).append(')');
                indexes.add(variables.size());
                variables.add(name);
                groups.add(group);
                group += 1 + subGroups;
                i = close + 1;
                continue;
            }
            if (c == '*' || c == '?') {
                flush(regex, literal, ignoreCase);
                regex.append(c == '*' ? ".*" : ".");
            } else {
                literal.append(c);
            }
            i++;
        }
        flush(regex, literal, ignoreCase);
        Pattern compiled = Pattern.compile(regex.toString(), ignoreCase ? Pattern.CASE_INSENSITIVE : 0);
        return new SegmentRegex(compiled, indexes.stream().mapToInt(Integer::intValue).toArray(),
                groups.stream().mapToInt(Integer::intValue).toArray());
    }

    private static int closingBrace(String segment, int open) {
        int depth = 0;
        for (int i = open; i < segment.length(); i++) {
            char c = segment.charAt(i);
            if (c == '\\') {
                i++;
            } else if (c == '{') {
                depth++;
            } else if (c == '}' && --depth == 0) {
                return i;
            }
        }
        throw new IllegalArgumentException("unclosed '{' in '" + segment + "'");
    }

    private static void checkVariable(String text, String name, List<String> variables) {
        if (!name.matches("[A-Za-z_][A-Za-z0-9_]*")) {
            throw new IllegalArgumentException("invalid variable name '" + name + "' in pattern '" + text
                    + "' (expected letters, digits and '_')");
        }
        if (variables.contains(name)) {
            throw new IllegalArgumentException("variable '" + name + "' appears twice in pattern '" + text + "'");
        }
    }

    private static int groupCount(String text, String regex) {
        try {
            return Pattern.compile(regex).matcher("").groupCount();
        } catch (PatternSyntaxException e) {
            throw new IllegalArgumentException("invalid regular expression '" + regex + "' in pattern '" + text
                    + "': " + e.getDescription());
        }
    }

    private static void flush(StringBuilder regex, StringBuilder literal, boolean ignoreCase) {
        if (!literal.isEmpty()) {
            String l = ignoreCase ? literal.toString().toLowerCase(Locale.ROOT) : literal.toString();
            regex.append(Pattern.quote(l));
            literal.setLength(0);
        }
    }

    private static String[] split(String value, char separator) {
        int n = 1;
        for (int i = 0; i < value.length(); i++) {
            if (value.charAt(i) == separator) {
                n++;
            }
        }
        String[] out = new String[n];
        int start = 0;
        int k = 0;
        for (int i = 0; i < value.length(); i++) {
            if (value.charAt(i) == separator) {
                out[k++] = value.substring(start, i);
                start = i + 1;
            }
        }
        out[k] = value.substring(start);
        return out;
    }

    @Override
    public String toString() {
        return text;
    }

    private sealed interface Element permits AnySegments, RestSegments, Literal, SegmentRegex {
    }

    /** {@code {*name}}: the rest of the path, bound to the variable at {@code variableIndex}. */
    private record RestSegments(int variableIndex) implements Element {
    }

    private record AnySegments() implements Element {
    }

    private record Literal(String text) implements Element {
    }

    /** Parallel arrays: variable i of this segment goes to bound[variableIndexes[i]] from group groups[i]. */
    private record SegmentRegex(Pattern pattern, int[] variableIndexes, int[] groups) implements Element {
    }
}
