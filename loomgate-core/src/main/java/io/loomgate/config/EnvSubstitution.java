package io.loomgate.config;

import java.util.Map;

/**
 * Replaces {@code ${NAME}} and {@code ${NAME:default}} in a scalar value with the environment variable, or the
 * default when the variable is unset (a variable set to the empty string counts as set). The default runs to the
 * closing brace and may contain ':' ({@code ${URI:http://127.0.0.1:8081}}). Substituted text is not scanned again.
 * There is no general escape: {@code $\{...}} is left as written (RewritePath reads it as {@code ${...}}).
 */
final class EnvSubstitution {
    private EnvSubstitution() {
    }

    /**
     * @throws IllegalArgumentException naming the variable, when it is unset without a default or malformed
     */
    static String substitute(String text, Map<String, String> env) {
        int open = text.indexOf("${");
        if (open < 0) {
            return text;
        }
        StringBuilder out = new StringBuilder(text.length() + 32);
        int from = 0;
        while (open >= 0) {
            int close = text.indexOf('}', open + 2);
            if (close < 0) {
                throw new IllegalArgumentException("unclosed '${' in '" + text + "'");
            }
            String inside = text.substring(open + 2, close);
            int colon = inside.indexOf(':');
            String name = colon < 0 ? inside : inside.substring(0, colon);
            if (!name.matches("[A-Za-z_][A-Za-z0-9_]*")) {
                throw new IllegalArgumentException("'${" + inside + "}' does not name an environment variable "
                        + "(expected ${NAME} or ${NAME:default})");
            }
            String value = env.get(name);
            if (value == null && colon < 0) {
                throw new IllegalArgumentException("environment variable '" + name + "' is not set and has no "
                        + "default (write ${" + name + ":default} to give one"
                        + (name.chars().anyMatch(Character::isLowerCase)
                                ? "; in a RewritePath replacement write $\\{" + name + "}" : "") + ")");
            }
            out.append(text, from, open).append(value != null ? value : inside.substring(colon + 1));
            from = close + 1;
            open = text.indexOf("${", from);
        }
        return out.append(text, from, text.length()).toString();
    }
}
