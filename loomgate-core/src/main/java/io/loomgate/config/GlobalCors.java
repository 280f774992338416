package io.loomgate.config;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The top-level {@code cors:} section (Spring Cloud Gateway's {@code globalcors}): one CORS policy for every route,
 * read as a {@code Cors} filter spec that every route shares in front of its own filters. Keys are the Cors filter's
 * arguments; their values are checked when the filter is built, with this section's line in the message.
 */
final class GlobalCors {
    static final List<String> KEYS = List.of("allowed-origins", "allowed-methods", "allowed-headers",
            "exposed-headers", "allow-credentials", "max-age");

    private GlobalCors() {
    }

    /** The spec, or null when the file has no {@code cors:} section. */
    static RouteSpec.ComponentSpec read(String file, Section root) throws ConfigException {
        if (!root.has("cors")) {
            return null;
        }
        Section s = Section.dotted(file, "cors", root.node("cors"), root.lineOf("cors"), KEYS);
        Map<String, String> args = new LinkedHashMap<>();
        Map<String, Integer> lines = new LinkedHashMap<>();
        for (String key : KEYS) {
            if (!s.has(key)) {
                continue;
            }
            lines.put(key, s.lineOf(key));
            YamlNode n = s.node(key);
            if (n instanceof YamlNode.Sequence) {
                args.put(key, String.join(",", s.scalarList(key).stream().map(YamlNode.Scalar::text).toList()));
            } else if (key.equals("allow-credentials")) {
                args.put(key, Boolean.toString(s.bool(key, false)));
            } else {
                args.put(key, s.string(key, null));
            }
        }
        return new RouteSpec.ComponentSpec("Cors", args, root.lineOf("cors"), lines, "cors");
    }
}
