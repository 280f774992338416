package io.loomgate.server;

import java.io.IOException;

/**
 * The seam between the connection loop and whatever answers requests (the proxy, the mock origin, the admin page).
 * Called once per request on the connection's own thread; it may block. When it returns, the response must be
 * complete; the connection loop then decides whether the connection can serve another request.
 */
@FunctionalInterface
public interface ExchangeHandler {
    void handle(ServerExchange exchange) throws IOException;
}
