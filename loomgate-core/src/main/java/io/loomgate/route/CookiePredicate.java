package io.loomgate.route;

import io.loomgate.extension.ExtensionArgs;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Spring Cloud Gateway's {@code Cookie=chocolate, ch.p}: holds when the request carries a cookie of that name (case
 * sensitive, as cookie names are) whose value the regex matches whole ({@code .*}: the cookie is present).
 * Any of several cookies of that name, in one or several {@code Cookie} fields, may match.
 */
record CookiePredicate(String name, Pattern regexp) implements RoutePredicate {
    static final PredicateFactory FACTORY = new BuiltinPredicateFactory("Cookie", List.of("name", "regexp"), false,
            args -> new CookiePredicate(args.token("name", "cookie name"), regexp(args)));

    /** SCG's Cookie without a regexp matches nothing, surely not what was meant: refused, with the way to say it. */
    private static Pattern regexp(ExtensionArgs args) {
        if (args.optional("regexp", null) == null) {
            throw new IllegalArgumentException("missing argument 'regexp' (Spring Cloud Gateway's Cookie without one "
                    + "matches nothing); to test that the cookie is present write Cookie=NAME, .*");
        }
        return args.regex("regexp");
    }

    @Override
    public boolean test(PredicateContext context) {
        for (String field : context.request().headers().all("Cookie")) {
            for (String pair : field.split(";")) {
                int eq = pair.indexOf('=');
                if (eq < 0 || !pair.substring(0, eq).trim().equals(name)) {
                    continue;
                }
                String value = pair.substring(eq + 1).trim();
                if (value.length() >= 2 && value.startsWith("\"") && value.endsWith("\"")) {
                    value = value.substring(1, value.length() - 1); // RFC 6265 allows a quoted value
                }
                if (regexp.matcher(value).matches()) {
                    return true;
                }
            }
        }
        return false;
    }
}
