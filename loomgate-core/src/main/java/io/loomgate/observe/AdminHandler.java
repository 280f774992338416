package io.loomgate.observe;

import io.loomgate.http.ResponseHead;
import io.loomgate.proxy.BoundRoutes;
import io.loomgate.route.Route;
import io.loomgate.server.ExchangeHandler;
import io.loomgate.server.ServerExchange;
import io.loomgate.upstream.Upstream;
import io.loomgate.upstream.Upstreams;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import java.util.stream.IntStream;

/**
 * The admin listener's endpoints. Runs on the admin {@code server.Listener}, on its own executor, off the data path;
 * every answer is computed on request from the live objects, so it never goes stale.
 *
 * <pre>
 *   /                 the dashboard (self-contained HTML, polls /api/stats)
 *   /health/live      200 while the process serves
 *   /health/ready     200 when the CLI's readiness says so and the memory gate accepts connections, else 503
 *   /metrics          Prometheus text (OpenMetrics if the Accept header asks for it)
 *   /routes           the loaded routes as JSON, with their counters
 *   /threads          a full thread dump as JSON, virtual threads included; ?format=text for text
 *   /pinned           recent pinned virtual threads as JSON
 *   /api/stats        the dashboard's numbers as JSON
 *   /reload           POST: reload the configuration file now; GET: the last reload's outcome (JSON)
 * </pre>
 * GET and HEAD are answered everywhere, POST on /reload only (as {@code application/json}); other methods get 405.
 * {@link AdminGuard} screens every request first (Host, token, POST origin and type); every answer forbids framing.
 * The pinned-event monitor is the one bound to the metrics with {@link GatewayMetrics#bindVirtualThreads}.
 */
public final class AdminHandler implements ExchangeHandler {
    static final String JSON = "application/json";
    static final String TEXT = "text/plain; charset=utf-8";
    private static final String INDEX = "Loomgate admin: / /health/live /health/ready /metrics /routes /threads "
            + "/threads?format=text /pinned /api/stats\n";

    private final GatewayMetrics metrics;
    private final Supplier<BoundRoutes> routes;
    private final Supplier<Upstreams> upstreams;
    private final BooleanSupplier ready;
    private final ConfigReloads reloads;
    private final DashboardStats stats;
    private final byte[] dashboard;
    private final AdminGuard guard;

    /**
     * @param metrics   the gateway's metrics
     * @param routes    the routes now loaded, bound to their upstreams
     * @param upstreams the upstreams, or null when not built (pools then show as empty)
     * @param ready     config loaded, listeners bound, not draining
     */
    public AdminHandler(GatewayMetrics metrics, Supplier<BoundRoutes> routes, Upstreams upstreams,
                        BooleanSupplier ready) {
        this(metrics, routes, () -> upstreams, ready, null, AdminAccess.LOCAL);
    }

    /**
     * @param metrics   the gateway's metrics
     * @param routes    the routes now served (a live reload replaces them)
     * @param upstreams the upstreams now served (a live reload replaces them); it may supply null
     * @param ready     config loaded, listeners bound, not draining
     * @param reloads   live reload, or null when there is none (/reload then answers 404)
     * @param access    who may use the listener
     */
    public AdminHandler(GatewayMetrics metrics, Supplier<BoundRoutes> routes, Supplier<Upstreams> upstreams,
                        BooleanSupplier ready, ConfigReloads reloads, AdminAccess access) {
        this.metrics = metrics;
        this.routes = routes;
        this.upstreams = upstreams;
        this.ready = ready;
        this.reloads = reloads;
        this.stats = new DashboardStats(metrics, () -> routes.get().routes(), upstreams);
        this.dashboard = resource("dashboard.html");
        this.guard = new AdminGuard(access.authToken(), access.bindAddress(), access.allowedHosts());
    }

    @Override
    public void handle(ServerExchange exchange) throws IOException {
        String method = exchange.request().method();
        AdminGuard.Refusal refusal = guard.check(exchange.request());
        if (refusal != null) {
            ResponseHead head = head(refusal.status(), TEXT);
            if (refusal.status() == 401) {
                AdminGuard.challenges().forEach(c -> head.headers().add("WWW-Authenticate", c));
            }
            exchange.respond(head, utf8(refusal.text()));
            return;
        }
        if (exchange.request().path().equals("/reload")) {
            reload(exchange, method);
            return;
        }
        if (!method.equals("GET") && !method.equals("HEAD")) {
            ResponseHead head = head(405, TEXT);
            head.headers().add("Allow", "GET, HEAD");
            exchange.respond(head, utf8("the admin listener answers GET and HEAD (and POST on /reload), not "
                    + method + "\n"));
            return;
        }
        String path = exchange.request().path();
        String query = exchange.request().query();
        switch (path) {
            case "/", "/index.html" -> send(exchange, 200, "text/html; charset=utf-8", dashboard);
            case "/health/live" -> HealthProbes.live(exchange);
            case "/health/ready" -> HealthProbes.ready(exchange, ready);
            case "/metrics" -> {
                GatewayMetrics.Scrape scrape = metrics.scrape(exchange.request().headers().first("Accept"));
                send(exchange, 200, scrape.contentType(), utf8(scrape.body()));
            }
            case "/routes" -> send(exchange, 200, JSON, AdminJson.write(routes()));
            case "/threads" -> threads(exchange, query);
            case "/pinned" -> send(exchange, 200, JSON, AdminJson.write(pinned()));
            case "/api/stats" -> send(exchange, 200, JSON, AdminJson.write(stats.snapshot()));
            default -> send(exchange, 404, TEXT, utf8("no admin endpoint at " + path + "; try " + INDEX));
        }
    }

    /** POST reloads now; GET shows the last attempt. Both answer the attempt as JSON, with its status. */
    private void reload(ServerExchange exchange, String method) throws IOException {
        if (reloads == null) {
            send(exchange, 404, TEXT, utf8("live reload is off for this gateway\n"));
            return;
        }
        ConfigReloads.Result r;
        if (method.equals("POST")) {
            r = reloads.reload("admin");
        } else if (method.equals("GET") || method.equals("HEAD")) {
            r = reloads.last();
            if (r == null) {
                send(exchange, 200, JSON, AdminJson.write(Map.of("outcome", "none",
                        "message", "no reload yet: the configuration read at start-up is served")));
                return;
            }
        } else {
            ResponseHead head = head(405, TEXT);
            head.headers().add("Allow", "GET, HEAD, POST");
            exchange.respond(head, utf8("/reload answers GET (the last reload) and POST (reload now)\n"));
            return;
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("outcome", r.outcome());
        m.put("message", r.message());
        m.put("trigger", r.trigger());
        m.put("at", r.at().toString());
        send(exchange, r.httpStatus(), JSON, AdminJson.write(m));
    }

    private void threads(ServerExchange exchange, String query) throws IOException {
        String format = queryParam(query, "format");
        if (format == null || format.equals("json")) {
            send(exchange, 200, JSON, ThreadDump.take(true));
        } else if (format.equals("text")) {
            send(exchange, 200, TEXT, ThreadDump.take(false));
        } else {
            send(exchange, 400, TEXT, utf8("format must be 'json' or 'text', got '" + format + "'\n"));
        }
    }

    private List<Map<String, Object>> routes() {
        List<Map<String, Object>> out = new ArrayList<>();
        BoundRoutes served = routes.get();
        for (Route r : served.routes()) {
            Upstream u = served.upstreamOf(r);
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("id", r.id());
            m.put("order", r.order());
            m.put("generation", served.generation()); // the configuration it is served from, as the access log says
            m.put("predicates", IntStream.range(0, r.predicates().size()).mapToObj(r::predicateText).toList());
            m.put("filters", r.filterTexts());
            List<String> policies = new ArrayList<>(); // Retry and CircuitBreaker, bound to the route, with state
            if (r.policies().retry() != null) {
                policies.add(r.policies().retry().toString());
            }
            if (r.policies().breaker() != null) {
                policies.add(r.policies().breaker().toString());
            }
            m.put("policies", policies);
            m.put("upstream", u == null ? null : u.id());
            m.put("loadBalancer", u == null ? null : u.balancing().policy().configName());
            m.put("endpoints", u == null ? List.of() : DashboardStats.pools(u));
            m.put("timeoutMillis", r.timeout() == null ? null : r.timeout().toMillis());
            m.put("preserveHost", r.preserveHost());
            m.put("maxInFlight", r.maxInFlight());
            m.put("queueTimeoutMillis", r.queueTimeout() == null ? null : r.queueTimeout().toMillis());
            RouteMeters meters = metrics.route(r.id());
            Map<String, Object> counters = new LinkedHashMap<>();
            counters.put("requests", meters == null ? 0 : meters.requestCount());
            counters.put("inFlight", meters == null ? 0 : meters.inFlight.get());
            counters.put("failures", meters == null ? 0 : meters.failureCount());
            counters.put("rejected", meters == null ? 0 : (long) meters.rejected.count());
            m.put("counters", counters);
            out.add(m);
        }
        return out;
    }

    /** The monitor bound to the metrics ({@link GatewayMetrics#bindVirtualThreads}); absent when it is off. */
    private Map<String, Object> pinned() {
        PinnedEventMonitor pinned = metrics.threadMonitor();
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("enabled", pinned != null);
        m.put("thresholdMillis", pinned == null ? null : pinned.threshold().toNanos() / 1e6);
        m.put("total", pinned == null ? 0 : pinned.pinnedTotal());
        m.put("recent", pinned == null ? List.of() : pinned.recent().stream().map(AdminJson::pinned).toList());
        return m;
    }

    private static void send(ServerExchange exchange, int status, String contentType, byte[] body)
            throws IOException {
        exchange.respond(head(status, contentType), body);
    }

    private static ResponseHead head(int status, String contentType) {
        ResponseHead head = ResponseHead.of(status);
        head.headers().add("Content-Type", contentType);
        // Every answer describes this instant; a cached one would mislead.
        head.headers().add("Cache-Control", "no-store");
        // No other page may frame the dashboard (clickjacking); the old header for old browsers, CSP for the rest.
        head.headers().add("X-Frame-Options", "DENY");
        head.headers().add("Content-Security-Policy", "frame-ancestors 'none'");
        head.headers().add("X-Content-Type-Options", "nosniff");
        return head;
    }

    /** The value of {@code name} in a raw query, or null; values here are plain words, so no decoding is needed. */
    static String queryParam(String query, String name) {
        if (query == null) {
            return null;
        }
        for (String pair : query.split("&")) {
            int eq = pair.indexOf('=');
            String key = eq < 0 ? pair : pair.substring(0, eq);
            if (key.equals(name)) {
                return eq < 0 ? "" : pair.substring(eq + 1);
            }
        }
        return null;
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] resource(String name) {
        try (InputStream in = AdminHandler.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("the jar lacks io/loomgate/observe/" + name);
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
