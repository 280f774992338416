package io.loomgate.filter;

import io.loomgate.http.Headers;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;

/**
 * Spring Cloud Gateway's {@code DedupeResponseHeader=Access-Control-Allow-Credentials Access-Control-Allow-Origin}:
 * for each named response header (space-separated), duplicate values are removed, by {@code strategy}
 * {@code RETAIN_FIRST} (default), {@code RETAIN_LAST} or {@code RETAIN_UNIQUE}. As in SCG, the values compared are
 * the fields' values (a comma list in one field counts as one value).
 */
record DedupeResponseHeaderFilter(List<String> names, String strategy) implements ResponseFieldsFilter {
    static final FilterFactory FACTORY = new BuiltinFilterFactory("DedupeResponseHeader",
            List.of("name", "strategy"), args -> new DedupeResponseHeaderFilter(names(args.required("name")),
                    strategy(args.optional("strategy", "RETAIN_FIRST"))));

    private static List<String> names(String written) {
        List<String> out = new ArrayList<>();
        for (String n : written.trim().split("\\s+")) {
            out.add(HeaderFields.name("name", n));
        }
        return out;
    }

    private static String strategy(String written) {
        String s = written.toUpperCase(Locale.ROOT);
        if (!List.of("RETAIN_FIRST", "RETAIN_LAST", "RETAIN_UNIQUE").contains(s)) {
            throw new IllegalArgumentException("strategy: expected RETAIN_FIRST, RETAIN_LAST or RETAIN_UNIQUE, got '"
                    + written + "'");
        }
        return s;
    }

    @Override
    public void editResponse(Headers headers) {
        for (String name : names) {
            List<String> values = headers.all(name);
            if (values.size() < 2) {
                continue;
            }
            List<String> kept = switch (strategy) {
                case "RETAIN_FIRST" -> List.of(values.getFirst());
                case "RETAIN_LAST" -> List.of(values.getLast());
                default -> List.copyOf(new LinkedHashSet<>(values));
            };
            headers.remove(name);
            kept.forEach(v -> headers.add(name, v));
        }
    }
}
