package io.loomgate.security;

import io.loomgate.extension.ExtensionArgs;
import io.loomgate.filter.BuiltinFilterFactory;
import io.loomgate.filter.FilterFactory;
import io.loomgate.filter.GatewayFilter;
import io.loomgate.filter.ResponseFieldsFilter;
import io.loomgate.http.Headers;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Adds the security response headers Spring Cloud Gateway's {@code SecureHeaders} adds, with its defaults. Each value
 * can be overridden by the argument of SCG's property name, and any header turned off with {@code disable} (a list
 * of header names, any case). A header the origin already sent is left as the origin wrote it. Immutable.
 */
final class SecureHeadersFilter implements ResponseFieldsFilter {
    /** SCG property name → header name and default value, in the order they are added. */
    private static final Map<String, String[]> DEFAULTS = new LinkedHashMap<>();

    static {
        DEFAULTS.put("xss-protection-header", new String[] {"X-Xss-Protection", "1 ; mode=block"});
        DEFAULTS.put("strict-transport-security", new String[] {"Strict-Transport-Security", "max-age=631138519"});
        DEFAULTS.put("frame-options", new String[] {"X-Frame-Options", "DENY"});
        DEFAULTS.put("content-type-options", new String[] {"X-Content-Type-Options", "nosniff"});
        DEFAULTS.put("referrer-policy", new String[] {"Referrer-Policy", "no-referrer"});
        DEFAULTS.put("content-security-policy", new String[] {"Content-Security-Policy",
                "default-src 'self' https:; font-src 'self' https: data:; img-src 'self' https: data:; "
                        + "object-src 'none'; script-src https:; style-src 'self' https: 'unsafe-inline'"});
        DEFAULTS.put("download-options", new String[] {"X-Download-Options", "noopen"});
        DEFAULTS.put("permitted-cross-domain-policies", new String[] {"X-Permitted-Cross-Domain-Policies", "none"});
    }

    static final FilterFactory FACTORY = new BuiltinFilterFactory("SecureHeaders", argNames(),
            SecureHeadersFilter::create);

    private final List<String[]> fields;

    private SecureHeadersFilter(List<String[]> fields) {
        this.fields = List.copyOf(fields);
    }

    private static List<String> argNames() {
        List<String> names = new ArrayList<>();
        names.add("disable");
        names.addAll(DEFAULTS.keySet());
        names.add("permissions-policy");
        return List.copyOf(names);
    }

    private static GatewayFilter create(ExtensionArgs a) {
        List<String> known = new ArrayList<>();
        DEFAULTS.values().forEach(d -> known.add(d[0].toLowerCase(Locale.ROOT)));
        known.add("permissions-policy");
        List<String> disabled = new ArrayList<>();
        for (String d : a.list("disable", List.of())) {
            String name = d.toLowerCase(Locale.ROOT);
            if (!known.contains(name)) {
                throw new IllegalArgumentException("disable: '" + d + "' is not one of " + String.join(", ", known));
            }
            disabled.add(name);
        }
        List<String[]> fields = new ArrayList<>();
        for (Map.Entry<String, String[]> e : DEFAULTS.entrySet()) {
            String header = e.getValue()[0];
            if (!disabled.contains(header.toLowerCase(Locale.ROOT))) {
                fields.add(new String[] {header, value(a, e.getKey(), e.getValue()[1])});
            }
        }
        // Not among SCG's defaults: added only when written.
        if (a.has("permissions-policy") && !disabled.contains("permissions-policy")) {
            fields.add(new String[] {"Permissions-Policy", value(a, "permissions-policy", null)});
        }
        return new SecureHeadersFilter(fields);
    }

    private static String value(ExtensionArgs a, String name, String otherwise) {
        String v = a.optional(name, otherwise);
        if (v.chars().anyMatch(c -> c < 0x20 || c == 0x7f || c > 0xff)) {
            throw new IllegalArgumentException(name + ": a header value cannot hold control characters");
        }
        return v;
    }

    @Override
    public void editResponse(Headers h) {
        for (String[] f : fields) {
            if (!h.contains(f[0])) {
                h.add(f[0], f[1]);
            }
        }
    }
}
