package io.loomgate.config;

import io.loomgate.filter.ArgumentException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Binds the arguments of a predicate or filter as written ({@link RouteSpec.ComponentSpec#args()}: positional
 * {@code _genkey_N} keys from the shorthand, or names from the expanded form) to the factory's argument names, as
 * Spring Cloud Gateway's shortcut configuration does.
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
