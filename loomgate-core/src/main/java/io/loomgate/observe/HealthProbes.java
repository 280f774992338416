package io.loomgate.observe;

import io.loomgate.http.ResponseHead;
import io.loomgate.server.ExchangeHandler;
import io.loomgate.server.Listener;
import io.loomgate.server.ServerExchange;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.function.BooleanSupplier;

/**
 * The liveness and readiness answers, the one owner of what "ready" means: the admin listener's
 * {@code /health/live} and {@code /health/ready}, and the same two under {@code admin.probe-path} on the main
 * listener ({@link #onMainListener}), so a pod can keep its admin listener on localhost and still be probed.
 */
public final class HealthProbes {
    private HealthProbes() {
    }

    /** 200 while the process serves. */
    static void live(ServerExchange exchange) throws IOException {
        send(exchange, 200, "live\n");
    }

    /** 200 when {@code ready} says so and the memory gate accepts connections, else 503 with the reason. */
    static void ready(ServerExchange exchange, BooleanSupplier ready) throws IOException {
        // A shut memory gate means new connections wait unaccepted: not ready, so new clients go elsewhere.
        boolean memory = Listener.memoryGateShut();
        boolean isReady = !memory && ready.getAsBoolean();
        send(exchange, isReady ? 200 : 503, isReady ? "ready\n" : memory
                ? "not ready: heap nearly full, new connections wait\n" : "not ready\n");
    }

    /**
     * The main listener's handler with {@code <path>/live} and {@code <path>/ready} answered before routing (GET and
     * HEAD; other methods go on to the routes like any request).
     */
    public static ExchangeHandler onMainListener(String path, BooleanSupplier ready, ExchangeHandler next) {
        String live = path + "/live";
        String readyPath = path + "/ready";
        return exchange -> {
            String p = exchange.request().path();
            String m = exchange.request().method();
            boolean readable = m.equals("GET") || m.equals("HEAD");
            if (readable && p.equals(live)) {
                live(exchange);
            } else if (readable && p.equals(readyPath)) {
                ready(exchange, ready);
            } else {
                next.handle(exchange);
            }
        };
    }

    private static void send(ServerExchange exchange, int status, String text) throws IOException {
        ResponseHead head = ResponseHead.of(status);
        head.headers().add("Content-Type", AdminHandler.TEXT);
        head.headers().add("Cache-Control", "no-store");
        exchange.respond(head, text.getBytes(StandardCharsets.UTF_8));
    }
}
