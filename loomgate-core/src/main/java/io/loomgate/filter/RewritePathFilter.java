package io.loomgate.filter;

import io.loomgate.http.RequestHead;
import java.io.IOException;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Rewrites the request path with a Java regular expression, as {@link String#replaceAll}: every match of
 * {@code regexp} in the raw path is replaced by {@code replacement}, which may refer to groups as {@code $1} or
 * {@code ${name}}. As in Spring Cloud Gateway, {@code $\{name}} is accepted for {@code ${name}} (YAML files use it
 * because {@code ${...}} there means an environment variable). The query stays byte-exact; a rewrite to the empty
 * string sends {@code /}.
 *
 * <p>Example: {@code RewritePath=/red/?(?<segment>.*), /$\{segment}} sends {@code /red/blue?x=1} on as
 * {@code /blue?x=1}.
 */
final class RewritePathFilter implements GatewayFilter {
    static final FilterFactory FACTORY = new BuiltinFilterFactory("RewritePath", List.of("regexp", "replacement"),
            args -> new RewritePathFilter(args.regex("regexp"), args.optional("replacement", "")));

    private final Pattern regexp;
    private final String replacement;

    RewritePathFilter(Pattern regexp, String replacement) {
        this.regexp = regexp;
        this.replacement = checkReplacement(regexp, replacement.replace("$\\{", "${"));
    }

    @Override
    public void filter(FilterExchange exchange, FilterChain chain) throws IOException {
        RequestHead request = exchange.request();
        String rewritten = regexp.matcher(request.path()).replaceAll(replacement);
        exchange.setRequest(request.withPath(rewritten.isEmpty() ? "/" : rewritten));
        chain.proceed(exchange);
    }

    /** Checks now what {@code replaceAll} would only find out on the first matching request. */
    private static String checkReplacement(Pattern regexp, String replacement) {
        PathText.requestLineSafe("replacement", replacement);
        return checkGroups(regexp, replacement);
    }

    /** The replacement's group references ({@code $1}, {@code ${name}}) exist in the regexp; shared with headers. */
    static String checkGroups(Pattern regexp, String replacement) {
        int groups = regexp.matcher("").groupCount();
        int i = 0;
        while (i < replacement.length()) {
            char c = replacement.charAt(i);
            if (c == '\\') {
                if (i + 1 == replacement.length()) {
                    throw new IllegalArgumentException("replacement: ends with a lone '\\' in '" + replacement + "'");
                }
                i += 2;
            } else if (c == '$') {
                i = checkGroupReference(regexp, groups, replacement, i + 1);
            } else {
                i++;
            }
        }
        return replacement;
    }

    private static int checkGroupReference(Pattern regexp, int groups, String replacement, int at) {
        if (at < replacement.length() && replacement.charAt(at) == '{') {
            int close = replacement.indexOf('}', at);
            String name = close < 0 ? "" : replacement.substring(at + 1, close);
            if (close < 0 || !regexp.namedGroups().containsKey(name)) {
                throw new IllegalArgumentException("replacement: '" + replacement + "' refers to group '" + name
                        + "', which regexp '" + regexp + "' does not define (named groups: "
                        + regexp.namedGroups().keySet() + ")");
            }
            return close + 1;
        }
        if (at < replacement.length() && Character.isDigit(replacement.charAt(at))) {
            int group = replacement.charAt(at) - '0';
            if (group > groups) {
                throw new IllegalArgumentException("replacement: '" + replacement + "' refers to group " + group
                        + ", but regexp '" + regexp + "' has " + groups + " group(s)");
            }
            return at + 1;
        }
        throw new IllegalArgumentException("replacement: '$' must be followed by a group number or {name} in '"
                + replacement + "'; write \\$ for a literal dollar sign");
    }

    @Override
    public String toString() {
        return "RewritePath[" + regexp + " -> " + replacement + "]";
    }
}
