package com.example.gateway;

import io.loomgate.filter.FilterExchange;
import io.loomgate.filter.FilterFactory;
import io.loomgate.filter.GatewayFilter;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Consumer;

/**
 * {@code Audit=team}: gives every request an audit id (sent upstream as {@code X-Audit-Id}), reports one line per
 * exchange to the application's own sink, and tells the client who audited it ({@code X-Audited-By: team}).
 */
final class AuditFilterFactory implements FilterFactory {
    private final Consumer<String> sink;

    AuditFilterFactory(Consumer<String> sink) {
        this.sink = sink;
    }

    @Override
    public String name() {
        return "Audit"; // the builder registers it under the name it is given; this is the name in a plugin jar
    }

    @Override
    public List<String> argNames() {
        return List.of("team");
    }

    @Override
    public GatewayFilter create(Map<String, String> args) {
        String team = args.get("team");
        if (team == null || !team.matches("[a-z][a-z0-9-]*")) {
            throw new IllegalArgumentException("team: expected a lower-case name such as 'payments', got " + team);
        }
        return (FilterExchange exchange, io.loomgate.filter.FilterChain chain) -> {
            String id = UUID.randomUUID().toString();
            exchange.request().headers().set("X-Audit-Id", id);
            chain.proceed(exchange);
            exchange.response().headers().set("X-Audited-By", team);
            sink.accept("audit " + id + " " + exchange.routeId() + " " + exchange.request().method() + " "
                    + exchange.originalTarget() + " -> " + exchange.response().status());
        };
    }
}
