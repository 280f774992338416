package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.cli.ServedGateway;
import io.loomgate.config.ConfigLoader;
import io.loomgate.config.Plugins;
import io.loomgate.observe.ConfigReloads;
import io.loomgate.proxy.BoundRoutes;
import io.loomgate.route.Route;
import io.loomgate.testkit.FreePorts;
import io.loomgate.testkit.RunningGateway;
import io.loomgate.testkit.TestOrigin;
import io.loomgate.testkit.TestOrigin.Reply;
import io.loomgate.upstream.Upstream;
import io.loomgate.upstream.UpstreamMember;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Routes naming one upstream of the {@code upstreams:} section by {@code uri: lb://NAME} share it: one set of members
 * with one health verdict and one outlier detector, seen by every route on it; and a live reload adds, changes and
 * removes named upstreams as it does routes. Real origins, real sockets.
 */
class NamedUpstreamTest {
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private static final String TWO_ROUTES = """
            routes:
              - id: read
                uri: lb://svc
                predicates: [ "Path=/read/**" ]
              - id: write
                uri: lb://svc
                predicates: [ "Path=/write/**" ]
            """;

    private static void await(BooleanSupplier condition, Duration timeout, String what) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not within " + timeout + ": " + what);
            }
            LockSupport.parkNanos(20_000_000);
        }
    }

    private static Upstream upstreamOf(RunningGateway gw, String routeId) {
        BoundRoutes bound = gw.gateway().boundRoutes();
        Route route = bound.routes().stream().filter(r -> r.id().equals(routeId)).findFirst().orElseThrow();
        return bound.upstreamOf(route);
    }

    @Test
    void anOriginEjectedThroughOneRouteIsEjectedForTheOtherRouteOnTheSameUpstream() throws Exception {
        String yaml = """
                upstreams:
                  svc:
                    uris: [ "${A}", "${B}" ]
                    load-balancer: round-robin
                    outlier-detection: { consecutive-failures: 1, base-ejection-time: 60s, max-ejection-percent: 50 }
                """ + TWO_ROUTES;
        try (TestOrigin a = new TestOrigin(); TestOrigin b = new TestOrigin();
             RunningGateway gw = RunningGateway.start(yaml, Map.of("A", a.uri(), "B", b.uri()))) {
            a.fallback(r -> Reply.ok("a"));
            b.fallback(r -> Reply.status(503)); // every answer a failure: ejected at the first
            Upstream read = upstreamOf(gw, "read");
            assertThat(upstreamOf(gw, "write")).as("one upstream for both routes").isSameAs(read);
            assertThat(read.id()).isEqualTo("svc");
            assertThat(gw.gateway().upstreams().all()).extracting(Upstream::id).containsExactly("svc");

            UpstreamMember memberB = read.members().get(1);
            for (int i = 0; i < 4 && memberB.timesEjected() == 0; i++) {
                gw.get("/read/" + i); // round robin: B answers one of the first two, 503, and is ejected
            }
            assertThat(memberB.timesEjected()).as("B ejected through route read").isPositive();
            int bBefore = b.requestCount();
            for (int i = 0; i < 10; i++) {
                HttpResponse<String> r = gw.get("/write/" + i);
                assertThat(r.statusCode()).as("write request %d", i).isEqualTo(200);
                assertThat(r.body()).isEqualTo("a");
            }
            assertThat(b.requestCount()).as("route write never tried the origin route read had ejected")
                    .isEqualTo(bBefore);
        }
    }

    @Test
    void oneHealthCheckerJudgesAnOriginForEveryRouteOnTheUpstream() throws Exception {
        String yaml = """
                upstreams:
                  svc:
                    uris: [ "${A}", "${B}" ]
                    load-balancer: round-robin
                    health-check: { path: /health, interval: 200ms, timeout: 1s, healthy-threshold: 1, unhealthy-threshold: 1 }
                """ + TWO_ROUTES;
        try (TestOrigin a = new TestOrigin(); TestOrigin b = new TestOrigin();
             RunningGateway gw = RunningGateway.start(yaml, Map.of("A", a.uri(), "B", b.uri()))) {
            AtomicInteger bHealth = new AtomicInteger(200);
            a.fallback(r -> Reply.ok("a"));
            b.fallback(r -> r.target().equals("/health") ? Reply.status(bHealth.get()) : Reply.ok("b"));
            Upstream svc = upstreamOf(gw, "read");
            UpstreamMember memberB = svc.members().get(1);
            await(() -> b.received().stream().anyMatch(r -> r.target().equals("/health")), Duration.ofSeconds(10),
                    "B probed");
            bHealth.set(503);
            await(() -> !memberB.healthy(), Duration.ofSeconds(10), "B seen unhealthy");
            for (String route : new String[] {"read", "write"}) {
                for (int i = 0; i < 6; i++) {
                    assertThat(gw.get("/" + route + "/" + i).body()).as(route).isEqualTo("a");
                }
            }
            // One checker probes B: each probe of one round comes from it, never a second one per route.
            long probesOfA = a.received().stream().filter(r -> r.target().equals("/health")).count();
            long probesOfB = b.received().stream().filter(r -> r.target().equals("/health")).count();
            assertThat(Math.abs(probesOfA - probesOfB)).as("A and B probed by the same rounds").isLessThanOrEqualTo(2);
        }
    }

    @Test
    void aReloadAddsChangesAndRemovesNamedUpstreamsLive(@TempDir Path dir) throws Exception {
        try (TestOrigin a = new TestOrigin(); TestOrigin b = new TestOrigin()) {
            a.fallback(r -> Reply.ok("a"));
            b.fallback(r -> Reply.ok("b"));
            Path file = dir.resolve("gateway.yaml");
            // admin port 0 turns it off: a probed port, started again on another if lost before the bind
            try (ServedGateway gw = FreePorts.start(admin -> {
                Files.writeString(file, head(admin) + "upstreams:\n  svc:\n    uri: " + a.uri() + "\n" + TWO_ROUTES);
                return ServedGateway.start(ConfigLoader.load(file), Plugins.NONE, new ServedGateway.Reloading(file,
                        UnaryOperator.identity(), false, false, Duration.ofMillis(50)));
            })) {
                String head = head(gw.adminPort()); // the reloads keep it (admin.port needs a restart)
                assertThat(body(gw, "/read/x")).isEqualTo("a");
                assertThat(body(gw, "/write/x")).isEqualTo("a");
                com.fasterxml.jackson.databind.JsonNode routes = new com.fasterxml.jackson.databind.ObjectMapper()
                        .readTree(admin(gw, "/routes"));
                assertThat(routes).extracting(r -> r.get("id").asText() + " → " + r.get("upstream").asText())
                        .as("/routes names the upstream").containsExactly("read → svc", "write → svc");

                // Changed: its uri now B, for both routes at once.
                Files.writeString(file, head + "upstreams:\n  svc:\n    uri: " + b.uri() + "\n" + TWO_ROUTES);
                ConfigReloads.Result changed = gw.reload();
                assertThat(changed.outcome()).as(changed.message()).isEqualTo("applied");
                assertThat(body(gw, "/read/x")).isEqualTo("b");
                assertThat(body(gw, "/write/x")).isEqualTo("b");

                // Added: route write moves to a new upstream.
                Files.writeString(file, head + "upstreams:\n  svc:\n    uri: " + b.uri() + "\n  other:\n    uri: "
                        + a.uri() + "\n" + TWO_ROUTES.replace("uri: lb://svc\n    predicates: [ \"Path=/write",
                        "uri: lb://other\n    predicates: [ \"Path=/write"));
                ConfigReloads.Result added = gw.reload();
                assertThat(added.outcome()).as(added.message()).isEqualTo("applied");
                assertThat(body(gw, "/read/x")).isEqualTo("b");
                assertThat(body(gw, "/write/x")).isEqualTo("a");

                // An upstream no route names yet: still a change the reload applies, never "unchanged".
                Files.writeString(file, Files.readString(file).replace("routes:", "  spare:\n    uri: " + a.uri()
                        + "\nroutes:"));
                assertThat(gw.reload().outcome()).isEqualTo("applied");

                // Removed while a route names it: refused at the route's line, the running set kept.
                Files.writeString(file, head + "upstreams:\n  other:\n    uri: " + a.uri() + "\n" + TWO_ROUTES);
                ConfigReloads.Result removed = gw.reload();
                assertThat(removed.outcome()).isEqualTo("invalid");
                assertThat(removed.message()).contains("route 'read': uri: no upstream 'svc' under upstreams:");
                assertThat(body(gw, "/read/x")).isEqualTo("b");
            }
        }
    }

    private static String body(ServedGateway gw, String path) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + gw.port() + path))
                .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString()).body();
    }

    private static String head(int adminPort) {
        return "server:\n  address: 127.0.0.1\n  port: 0\nadmin:\n  address: 127.0.0.1\n  port: " + adminPort
                + "\naccess-log:\n  enabled: false\n";
    }

    private static String admin(ServedGateway gw, String path) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + gw.adminPort() + path))
                .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString()).body();
    }
}
