package io.loomgate.config;

import io.loomgate.extension.ArgumentException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Binds the arguments of a predicate or filter as written ({@link RouteSpec.ComponentSpec#args()}: positional
 * {@code _genkey_N} keys from the shorthand, or names from the expanded form) to the factory's argument names, as
 * Spring Cloud Gateway's shortcut configuration does. A nested mapping the reader flattened to dotted names
 * ({@code claims-to-headers.sub}) binds to the argument before the dot, when the factory has one of that name, as
 * {@code key=value} pairs.
 */
final class ComponentBinder {
    static final String POSITIONAL = "_genkey_";

    private ComponentBinder() {
    }

    /**
     * @throws IllegalArgumentException for surplus shorthand values and unknown argument names
     */
    static Map<String, String> bind(Map<String, String> written, List<String> names, boolean gathersList) {
        if (written.isEmpty()) {
            return Map.of();
        }
        boolean positional = written.keySet().stream().allMatch(k -> k.startsWith(POSITIONAL));
        Map<String, String> bound = new LinkedHashMap<>();
        if (positional) {
            List<String> values = List.copyOf(written.values());
            if (names.isEmpty()) {
                throw new IllegalArgumentException("takes no arguments, got " + values.size());
            }
            if (gathersList) {
                bound.put(names.get(0), String.join(",", values));
                return bound;
            }
            if (values.size() > names.size()) {
                throw new IllegalArgumentException("takes at most " + names.size() + " argument(s) ("
                        + String.join(", ", names) + "), got " + values.size() + ": " + String.join(",", values)
                        + "; a value containing ',' needs the expanded form (name and args)");
            }
            for (int i = 0; i < values.size(); i++) {
                bound.put(names.get(i), values.get(i));
            }
            return bound;
        }
        for (Map.Entry<String, String> e : written.entrySet()) {
            String k = e.getKey();
            int dot = k.indexOf('.');
            if (!names.contains(k) && dot > 0 && names.contains(k.substring(0, dot))
                    && k.substring(dot + 1).matches("\\d+")) {
                // Spring's indexed list binding ({patterns.0: /red, patterns.1: /blue}): the items in written order.
                bound.merge(k.substring(0, dot), e.getValue(), (a, b) -> a + "," + b);
                continue;
            }
            if (!names.contains(k) && dot > 0 && names.contains(k.substring(0, dot))) {
                // A mapping argument ({claims-to-headers: {sub: X-User-Id}}), which the reader flattened to dotted
                // names: handed to the factory as key=value pairs joined with commas.
                String arg = k.substring(0, dot);
                String entry = k.substring(dot + 1);
                if (entry.contains("=") || entry.contains(",") || e.getValue().contains(",")) {
                    throw new IllegalArgumentException(arg + ": '" + entry + "': a mapping argument takes keys "
                            + "without '=' or ',' and single values without ','");
                }
                bound.merge(arg, entry + "=" + e.getValue(), (a, b) -> a + "," + b);
                continue;
            }
            if (!names.contains(e.getKey())) {
                String hint = DidYouMean.hint(e.getKey(), names);
                throw new ArgumentException(e.getKey(), "unknown argument '" + e.getKey() + "'"
                        + (hint.isEmpty() ? " (arguments: " + String.join(", ", names) + ")" : hint));
            }
            bound.put(e.getKey(), e.getValue());
        }
        return bound;
    }
}
