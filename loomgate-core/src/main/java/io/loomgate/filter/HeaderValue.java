package io.loomgate.filter;

/**
 * A header value from configuration, checked when the route is built, with {@code {name}} placeholders filled per
 * request from the route's variables (Spring Cloud Gateway expands them the same way). Immutable.
 */
final class HeaderValue {
    private final VariableTemplate template;

    HeaderValue(String text) {
        this.template = new VariableTemplate(HeaderFields.value("value", text));
    }

    String valueFor(FilterExchange exchange) {
        String v = template.expand(exchange.uriVariables());
        if (template.hasVariables()) {
            String problem = HeaderFields.problem(v);
            if (problem != null) {
                throw new IllegalStateException("header value from template '" + template + "' " + problem);
            }
        }
        return v;
    }

    @Override
    public String toString() {
        return template.toString();
    }
}
