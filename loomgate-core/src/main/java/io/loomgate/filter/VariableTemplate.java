package io.loomgate.filter;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Text with {@code {name}} placeholders filled from the variables a route's predicates bound (a Path pattern's
 * {@code {segment}}, a Host pattern's {@code {sub}}), as Spring Cloud Gateway expands them in SetPath and header
 * values. Braces around anything that is not a plain identifier ({@code {"a":1}}) stay literal. Values are inserted
 * raw: the gateway never decodes or re-encodes them. Immutable.
 */
final class VariableTemplate {
    private static final Pattern PLACEHOLDER = Pattern.compile("\\{([A-Za-z_][A-Za-z0-9_]*)}");

    private final String text;
    /** Alternating literal and variable parts; variables are at odd indexes. */
    private final List<String> parts;

    VariableTemplate(String text) {
        this.text = text;
        List<String> p = new ArrayList<>();
        Matcher m = PLACEHOLDER.matcher(text);
        int last = 0;
        while (m.find()) {
            p.add(text.substring(last, m.start()));
            p.add(m.group(1));
            last = m.end();
        }
        p.add(text.substring(last));
        this.parts = List.copyOf(p);
    }

    boolean hasVariables() {
        return parts.size() > 1;
    }

    Set<String> variableNames() {
        LinkedHashSet<String> names = new LinkedHashSet<>();
        for (int i = 1; i < parts.size(); i += 2) {
            names.add(parts.get(i));
        }
        return names;
    }

    /**
     * Fills the placeholders.
     *
     * @throws IllegalStateException when a variable is not bound: the route's predicates do not bind that name
     */
    String expand(Map<String, String> variables) {
        if (!hasVariables()) {
            return text;
        }
        StringBuilder sb = new StringBuilder(text.length() + 16);
        for (int i = 0; i < parts.size(); i++) {
            if (i % 2 == 0) {
                sb.append(parts.get(i));
            } else {
                String v = variables.get(parts.get(i));
                if (v == null) {
                    throw new IllegalStateException("template '" + text + "' needs variable '" + parts.get(i)
                            + "', which the route's predicates did not bind (bound: " + variables.keySet() + ")");
                }
                sb.append(v);
            }
        }
        return sb.toString();
    }

    @Override
    public String toString() {
        return text;
    }
}
