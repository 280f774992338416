package io.loomgate.cli;

import io.loomgate.config.ConfigException;
import io.loomgate.config.ConfigLoader;
import io.loomgate.config.GatewayConfig;
import io.loomgate.config.Plugins;
import io.loomgate.server.ConnectionListener;
import io.loomgate.server.Listener;
import io.loomgate.server.ListenerSettings;
import io.loomgate.threads.ConnectionExecutors;
import io.loomgate.threads.ThreadModel;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code loomgate demo}: starts a small origin and the gateway with the bundled demo.yaml, sends a few requests
 * through it, prints what happened and the curl line to try, then serves until Ctrl-C.
 */
@Command(name = "demo", mixinStandardHelpOptions = true,
        description = "Start an origin and the gateway with a bundled config, and show requests going through.")
final class DemoCommand implements Callable<Integer> {

    @Option(names = "--port", description = "Gateway port (default ${DEFAULT-VALUE}; 0 picks a free one).",
            defaultValue = "8080")
    int port;

    @Option(names = "--once", description = "Exit after the demo requests (status 0 if each got what it should).")
    boolean once;

    @Override
    public Integer call() throws Exception {
        Listener origin = new Listener(ListenerSettings.defaults("127.0.0.1", 0), new DemoOrigin(),
                ConnectionExecutors.create(ThreadModel.VIRTUAL, "origin"), ConnectionListener.NOOP).start();
        ServedGateway gw;
        try {
            gw = startGateway(origin.port(), port);
        } catch (IOException e) {
            if (port == 0) {
                throw e;
            }
            System.out.println("port " + port + " is busy (" + e.getMessage() + "); using a free port instead");
            gw = startGateway(origin.port(), 0);
        }
        String base = "http://127.0.0.1:" + gw.port();
        String admin = "http://127.0.0.1:" + gw.adminPort();
        System.out.println("loomgate demo: origin on 127.0.0.1:" + origin.port() + ", gateway on " + base
                + " (virtual threads), routes " + gw.routeIds());
        System.out.println();
        boolean ok = sendDemoRequests(base);
        System.out.println();
        System.out.println("Try it:   curl -i " + base + "/users/42");
        System.out.println("          curl -i " + base + "/old/7        (a redirect made by the gateway)");
        System.out.println("          curl " + admin + "/routes     (the routes as the config writes them)");
        System.out.println("Dashboard: " + admin + "/");
        if (once) {
            gw.close();
            origin.close();
            return ok ? 0 : 1;
        }
        System.out.println("Serving until Ctrl-C.");
        ServedGateway running = gw;
        ShutdownSignals.serveUntilTerminated(() -> {
            try {
                running.drain(Duration.ofSeconds(5));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            origin.close();
            return 0;
        });
        return 0;
    }

    private static ServedGateway startGateway(int originPort, int gatewayPort)
            throws ConfigException, IOException, InterruptedException {
        return startGateway(originPort, gatewayPort, DemoCommand::freePort);
    }

    /**
     * How many admin ports the demo tries: the admin listener needs a real port (0 turns it off), chosen free here and
     * bound a moment later, so another process can take it in between; that bind alone is tried again.
     */
    static final int ADMIN_PORT_ATTEMPTS = 3;

    static ServedGateway startGateway(int originPort, int gatewayPort, AdminPorts adminPorts)
            throws ConfigException, IOException, InterruptedException {
        String yaml;
        try (InputStream in = DemoCommand.class.getResourceAsStream("/demo.yaml")) {
            yaml = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        Map<String, String> env = new HashMap<>(System.getenv());
        env.put("DEMO_ORIGIN", "http://127.0.0.1:" + originPort);
        env.put("DEMO_PORT", Integer.toString(gatewayPort));
        for (int attempt = 1; ; attempt++) {
            env.put("DEMO_ADMIN_PORT", Integer.toString(adminPorts.next()));
            GatewayConfig cfg = ConfigLoader.parse(yaml, "demo.yaml", env);
            try {
                return ServedGateway.start(cfg, Plugins.NONE);
            } catch (IOException e) {
                if (attempt == ADMIN_PORT_ATTEMPTS || !lostAdminBind(e)) {
                    throw e;
                }
            }
        }
    }

    /**
     * Whether the start failed because the admin listener's port was taken ({@link Observability}'s
     * {@link Observability.AdminPortTaken}): told by the exception's type, never by its words. Until session 53 this
     * read the message's start, and a failure without a message (a {@link java.net.BindException} made without one)
     * became a NullPointerException in place of the real failure. The gateway's own port is the caller's (its busy
     * default falls back to 0 there), and any other failure is not a lost port.
     */
    static boolean lostAdminBind(IOException e) {
        return e instanceof Observability.AdminPortTaken;
    }

    /** Where {@link #startGateway} takes each attempt's admin port from ({@link #freePort} but in a test). */
    @FunctionalInterface
    interface AdminPorts {
        int next() throws IOException;
    }

    /** A port free now (the admin listener needs a real one: 0 turns it off; a lost one is tried again). */
    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    /** Each demo request with the status it should get; prints what came back. */
    private static boolean sendDemoRequests(String base) throws IOException, InterruptedException {
        HttpClient client = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER)
                .connectTimeout(Duration.ofSeconds(2)).build();
        boolean ok = true;
        ok &= show(client, base, "/users/42?tab=profile", 200,
                "route 'users': StripPrefix=1 removes /users, the origin sees /42?tab=profile");
        ok &= show(client, base, "/old/7", 301, "route 'legacy': RedirectTo answers without calling the origin");
        ok &= show(client, base, "/missing", 404, "route 'default': the origin's own 404 passes through");
        return ok;
    }

    private static boolean show(HttpClient client, String base, String path, int expected, String what)
            throws IOException, InterruptedException {
        HttpResponse<String> r = client.send(HttpRequest.newBuilder(URI.create(base + path))
                .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
        System.out.println("GET " + path + "  ->  " + r.statusCode() + "   " + what);
        r.headers().firstValue("location").ifPresent(l -> System.out.println("    Location: " + l));
        r.headers().firstValue("x-route").ifPresent(l -> System.out.println("    X-Route: " + l));
        for (String line : r.body().split("\n")) {
            if (line.startsWith("origin saw") || line.contains("X-Forwarded-For") || line.contains("traceparent")
                    || line.contains("Via")) {
                System.out.println("    " + line.trim());
            }
        }
        if (r.statusCode() != expected) {
            System.out.println("    UNEXPECTED: wanted " + expected);
            return false;
        }
        return true;
    }
}
