package io.loomgate.server;

import io.loomgate.http.ResponseHead;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * The handler of {@code server.http-redirect-port}: answers every request on the plain port with 308 Permanent
 * Redirect to the same host and target over https (308, not 301: a POST stays a POST, RFC 9110 §15.4.9). The port is
 * left out of Location when it is 443.
 */
public final class HttpsRedirect implements ExchangeHandler {
    private final int httpsPort;

    public HttpsRedirect(int httpsPort) {
        this.httpsPort = httpsPort;
    }

    @Override
    public void handle(ServerExchange exchange) throws IOException {
        String host = exchange.request().headers().first("Host");
        if (host == null || host.isEmpty()) {
            exchange.respond(400, "a Host header is needed to redirect to https\n");
            return;
        }
        String target = exchange.request().target();
        if (target.isEmpty() || target.charAt(0) != '/') {
            exchange.respond(400, "only origin-form targets are redirected to https\n");
            return;
        }
        String location = "https://" + hostWithoutPort(host) + (httpsPort == 443 ? "" : ":" + httpsPort) + target;
        ResponseHead head = ResponseHead.of(308);
        head.headers().add("Location", location);
        head.headers().add("Content-Type", "text/plain; charset=utf-8");
        exchange.respond(head, ("use " + location + "\n").getBytes(StandardCharsets.UTF_8));
    }

    static String hostWithoutPort(String host) {
        if (host.startsWith("[")) {
            int close = host.indexOf(']');
            return close > 0 ? host.substring(0, close + 1) : host;
        }
        int colon = host.lastIndexOf(':');
        return colon < 0 ? host : host.substring(0, colon);
    }
}
