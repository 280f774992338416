package io.loomgate.filter;

import io.loomgate.http.Headers;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Spring Cloud Gateway's {@code RewriteResponseHeader=X-Response-Red, password=[^&]+, password=***}: each value of
 * the named response header is rewritten as {@link String#replaceAll} with the regexp and replacement ({@code $1},
 * {@code ${name}}, and SCG's {@code $\{name}}), as {@link RewritePathFilter} rewrites the path. The replacement is a
 * valid header value and its group references exist, checked at start-up.
 */
record RewriteResponseHeaderFilter(String name, Pattern regexp, String replacement) implements ResponseFieldsFilter {
    static final FilterFactory FACTORY = new BuiltinFilterFactory("RewriteResponseHeader",
            List.of("name", "regexp", "replacement"), args -> new RewriteResponseHeaderFilter(
                    HeaderFields.name("name", args.required("name")), args.regex("regexp"),
                    args.optional("replacement", "")));

    /** Reads SCG's {@code $\{name}} as {@code ${name}}; refuses a replacement that is no valid header value. */
    RewriteResponseHeaderFilter {
        String r = replacement.replace("$\\{", "${");
        HeaderFields.value("replacement", r);
        replacement = RewritePathFilter.checkGroups(regexp, r);
    }

    @Override
    public void editResponse(Headers fields) {
        if (!fields.contains(name)) {
            return;
        }
        List<String> values = List.copyOf(fields.all(name));
        fields.remove(name);
        for (String v : values) {
            fields.add(name, regexp.matcher(v).replaceAll(replacement));
        }
    }

    @Override
    public String toString() {
        return "RewriteResponseHeader[" + name + ": " + regexp + " -> " + replacement + "]";
    }
}
