package io.loomgate.http;

import java.util.ArrayList;
import java.util.List;

/**
 * A list of header field names, each either a name ({@code X-Real-IP}) or a prefix ending in '*' ({@code X-Envoy-*}),
 * matched ignoring case. Lives in the vocabulary, like {@link Cidr}, because {@code config} validates the list
 * ({@code server.strip-request-headers}) and {@code proxy} matches against it.
 *
 * @param patterns the entries as written, for messages and docs
 */
public record FieldNamePatterns(List<String> patterns) {
    /**
     * Fields a client may not send through the gateway (issue 35): origins and frameworks read them as the proxy's
     * word. X-Real-IP (nginx's client address), X-Forwarded-Prefix (Spring's {@code ForwardedHeaderFilter} builds
     * redirect and link URLs from it), X-Original-URL and X-Rewrite-URL (IIS and Symfony-style frameworks route by
     * them, past the path a route matched) and Envoy's internal {@code x-envoy-*} fields.
     */
    public static final FieldNamePatterns STRIPPED_BY_DEFAULT = parse(List.of("X-Real-IP", "X-Forwarded-Prefix",
            "X-Original-URL", "X-Rewrite-URL", "X-Envoy-*"));

    public static final FieldNamePatterns NONE = new FieldNamePatterns(List.of());

    public FieldNamePatterns {
        patterns = List.copyOf(patterns);
    }

    /**
     * Reads the entries: each a field name (a token), or a non-empty token prefix followed by one '*'.
     *
     * @throws IllegalArgumentException naming the first bad entry and what was expected
     */
    public static FieldNamePatterns parse(List<String> entries) {
        List<String> out = new ArrayList<>(entries.size());
        for (String e : entries) {
            out.add(checked(e));
        }
        return new FieldNamePatterns(out);
    }

    /**
     * One entry, as written, once it is a field name or a name prefix followed by '*'.
     *
     * @throws IllegalArgumentException naming the entry and what was expected
     */
    public static String checked(String entry) {
        String name = entry.endsWith("*") ? entry.substring(0, entry.length() - 1) : entry;
        if (!Tokens.isToken(name)) {
            throw new IllegalArgumentException("'" + entry + "' is not a header field name, or a name prefix "
                    + "followed by '*' (X-Envoy-*)");
        }
        return entry;
    }

    /** Whether a field of this name is one the list names. */
    public boolean matches(String name) {
        for (String p : patterns) {
            if (p.endsWith("*") ? name.regionMatches(true, 0, p, 0, p.length() - 1) : name.equalsIgnoreCase(p)) {
                return true;
            }
        }
        return false;
    }

    /** Removes every field the list names; from the end, so a removal moves nothing still to see. */
    public void removeFrom(Headers h) {
        if (patterns.isEmpty()) {
            return;
        }
        for (int i = h.size() - 1; i >= 0; i--) {
            if (matches(h.name(i))) {
                h.removeAt(i);
            }
        }
    }
}
