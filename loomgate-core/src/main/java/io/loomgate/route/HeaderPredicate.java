package io.loomgate.route;

import java.util.List;
import java.util.regex.Pattern;

/**
 * Holds when the request has a header field of that name whose value the regex matches whole:
 * {@code Header=X-Request-Id, \d+}. Without a regex, holds when the field is present. Any one of several fields of
 * that name may match.
 *
 * @param name   the field name, matched ignoring case
 * @param regexp null to test presence only
 */
record HeaderPredicate(String name, Pattern regexp) implements RoutePredicate {
    static final PredicateFactory FACTORY = new BuiltinPredicateFactory("Header", List.of("header", "regexp"), false,
            args -> new HeaderPredicate(args.token("header", "header name"), args.optionalRegex("regexp")));

    @Override
    public boolean test(PredicateContext context) {
        List<String> values = context.request().headers().all(name);
        if (regexp == null) {
            return !values.isEmpty();
        }
        for (String v : values) {
            if (regexp.matcher(v).matches()) {
                return true;
            }
        }
        return false;
    }
}
