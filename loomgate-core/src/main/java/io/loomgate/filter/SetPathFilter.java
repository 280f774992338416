package io.loomgate.filter;

import io.loomgate.http.RequestHead;
import java.io.IOException;
import java.util.List;

/**
 * Replaces the request path with a template filled from the route's variables: with {@code Path=/red/{segment}},
 * {@code SetPath=/{segment}} sends {@code /red/blue?x=1} on as {@code /blue?x=1}. Variables are inserted raw; the
 * query stays byte-exact. A variable the route's predicates did not bind fails the request (IllegalStateException).
 */
final class SetPathFilter implements GatewayFilter {
    static final FilterFactory FACTORY = new BuiltinFilterFactory("SetPath", List.of("template"),
            args -> new SetPathFilter(args.required("template")));

    private final VariableTemplate template;

    SetPathFilter(String template) {
        this.template = new VariableTemplate(PathText.absolutePath("template", template));
    }

    @Override
    public void filter(FilterExchange exchange, FilterChain chain) throws IOException {
        RequestHead request = exchange.request();
        exchange.setRequest(request.withPath(template.expand(exchange.uriVariables())));
        chain.proceed(exchange);
    }

    @Override
    public String toString() {
        return "SetPath[" + template + "]";
    }
}
