package io.loomgate.cli;

import io.loomgate.http.Headers;
import io.loomgate.http.RequestHead;
import io.loomgate.server.ExchangeHandler;
import io.loomgate.server.ServerExchange;
import java.io.IOException;

/**
 * The demo's origin: answers every request with what it received (request line and fields), so the demo can show
 * what the gateway changed on the way: the stripped prefix, the forwarding fields, the trace context.
 */
final class DemoOrigin implements ExchangeHandler {
    @Override
    public void handle(ServerExchange exchange) throws IOException {
        RequestHead r = exchange.request();
        exchange.requestBody().drain(1 << 20);
        StringBuilder sb = new StringBuilder("origin saw: ").append(r.method()).append(' ').append(r.target())
                .append('\n');
        Headers h = r.headers();
        for (int i = 0; i < h.size(); i++) {
            sb.append("  ").append(h.name(i)).append(": ").append(h.value(i)).append('\n');
        }
        exchange.respond(r.path().equals("/missing") ? 404 : 200, sb.toString());
    }
}
