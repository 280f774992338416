package io.loomgate.route;

import java.util.List;
import java.util.regex.Pattern;

/**
 * Holds when the raw query has a parameter of that name whose value the regex matches whole:
 * {@code Query=color, gree.}. Without a regex, holds when the parameter is present ({@code ?debug} and
 * {@code ?debug=} both count). Names and values are compared raw, as sent: {@code %20} and {@code +} are not decoded.
 *
 * @param param  the parameter name, case-sensitive
 * @param regexp null to test presence only
 */
record QueryPredicate(String param, Pattern regexp) implements RoutePredicate {
    static final PredicateFactory FACTORY = new BuiltinPredicateFactory("Query", List.of("param", "regexp"), false,
            args -> new QueryPredicate(args.required("param"), args.optionalRegex("regexp")));

    @Override
    public boolean test(PredicateContext context) {
        String query = context.request().query();
        if (query == null) {
            return false;
        }
        int start = 0;
        while (start <= query.length()) {
            int amp = query.indexOf('&', start);
            int end = amp < 0 ? query.length() : amp;
            if (holdsFor(query, start, end)) {
                return true;
            }
            start = end + 1;
        }
        return false;
    }

    private boolean holdsFor(String query, int start, int end) {
        int eq = query.indexOf('=', start);
        int nameEnd = eq < 0 || eq > end ? end : eq;
        if (nameEnd - start != param.length() || !query.startsWith(param, start)) {
            return false;
        }
        String value = nameEnd == end ? "" : query.substring(nameEnd + 1, end);
        return regexp == null || regexp.matcher(value).matches();
    }
}
