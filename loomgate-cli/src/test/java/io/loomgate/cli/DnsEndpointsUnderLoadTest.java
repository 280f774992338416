package io.loomgate.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.config.ConfigLoader;
import io.loomgate.config.GatewayConfig;
import io.loomgate.config.Plugins;
import io.loomgate.testkit.HostsFile;
import io.loomgate.testkit.RunningGateway;
import io.loomgate.testkit.TestOrigin;
import io.loomgate.testkit.TestOrigin.Reply;
import io.loomgate.upstream.Endpoint;
import io.loomgate.upstream.UpstreamPool;
import java.net.InetAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A route to a host name follows its DNS records while traffic flows, without a restart: three instances behind one
 * name (127.0.0.2-4, one port), the name's records rewritten, clients sending all along. Nobody sees an error, the
 * leaving instance's request in flight finishes, its connections close, and a live reload meanwhile keeps the pools
 * of the addresses resolved.
 */
class DnsEndpointsUnderLoadTest {
    private static final HttpClient CLIENT = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @TempDir
    Path dir;

    private static void await(BooleanSupplier condition, String what) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not within 15 s: " + what);
            }
            LockSupport.parkNanos(10_000_000);
        }
    }

    private static GatewayConfig config(int port, String extraRouteLines) throws Exception {
        String yaml = """
                server:
                  address: 127.0.0.1
                  port: 0
                admin:
                  port: 0
                routes:
                  - id: api
                    uri: http://svc.test:%d
                    load-balancer: round-robin
                    dns-refresh: 100ms
                    predicates: [ "Path=/**" ]
                """.formatted(port) + extraRouteLines;
        return ConfigLoader.parse(yaml, "test.yaml", Map.of());
    }

    private static HttpResponse<String> get(Gateway gw, String path) throws Exception {
        return CLIENT.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + gw.port() + path))
                .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static List<String> addresses(Gateway gw) {
        return gw.upstreams().get("api").endpoints().stream().map(e -> e.address().getHostAddress()).toList();
    }

    @Test
    void instancesJoinAndLeaveWithoutARestartWhileTrafficFlowsAndNobodySeesAnError() throws Exception {
        try (TestOrigin two = TestOrigin.at(InetAddress.getByName("127.0.0.2"), 0);
             TestOrigin three = TestOrigin.at(InetAddress.getByName("127.0.0.3"), two.port());
             TestOrigin four = TestOrigin.at(InetAddress.getByName("127.0.0.4"), two.port())) {
            two.fallback(r -> r.target().equals("/slow") ? Reply.ok("slow two").delayed(Duration.ofMillis(1500))
                    : Reply.ok("two"));
            three.fallback(r -> Reply.ok("three"));
            four.fallback(r -> Reply.ok("four"));
            HostsFile hosts = new HostsFile(dir.resolve("hosts")).map("svc.test", "127.0.0.2", "127.0.0.3");
            GatewayConfig cfg = config(two.port(), "");
            List<String> errors = Collections.synchronizedList(new ArrayList<>());
            AtomicBoolean stop = new AtomicBoolean();
            try (Gateway gw = RunningGateway.onTheTransportAsked(Gateway.start(RunningGateway.onTransportUnderTest(cfg),
                    Plugins.NONE, Gateway.Observers.NONE, hosts));
                 ExecutorService clients = Executors.newVirtualThreadPerTaskExecutor()) {
                try { // the clients stop before the executor's close waits for them
                    assertThat(addresses(gw)).containsExactly("127.0.0.2", "127.0.0.3");
                    List<CompletableFuture<Void>> traffic = new ArrayList<>();
                    for (int c = 0; c < 8; c++) {
                        traffic.add(CompletableFuture.runAsync(() -> {
                            for (int i = 0; !stop.get(); i++) {
                                try {
                                    HttpResponse<String> r = get(gw, "/load/" + i);
                                    if (r.statusCode() != 200) {
                                        errors.add(r.statusCode() + " " + r.body());
                                    }
                                } catch (Exception e) {
                                    errors.add(e.toString());
                                }
                            }
                        }, clients));
                    }

                    // joins: the third address takes traffic without a restart
                    hosts.map("svc.test", "127.0.0.2", "127.0.0.3", "127.0.0.4");
                    await(() -> four.requestCount() > 20, "127.0.0.4 joined and serves");

                    // leaves, with a request in flight on it: that request finishes, then its connections close
                    UpstreamPool leaving = gw.upstreams().get("api").members().stream()
                            .filter(m -> m.endpoint().address().getHostAddress().equals("127.0.0.2")).findFirst()
                            .orElseThrow().pool();
                    CompletableFuture<HttpResponse<String>> slow = CompletableFuture.supplyAsync(() -> {
                        try {
                            HttpResponse<String> r = null;
                            while (!stop.get()) {
                                r = get(gw, "/slow");
                                if (r.body().equals("slow two")) {
                                    break;
                                }
                            }
                            return r;
                        } catch (Exception e) {
                            throw new IllegalStateException(e);
                        }
                    }, clients);
                    await(() -> two.received().stream().anyMatch(r -> r.target().equals("/slow")), "/slow on .2");
                    hosts.map("svc.test", "127.0.0.3", "127.0.0.4");
                    await(() -> !addresses(gw).contains("127.0.0.2"), "127.0.0.2 left");
                    // The members change first, the registry of pools right after (the refresh's thread): wait for it.
                    await(() -> !gw.upstreams().pools().contains(leaving), "its pool left the registry");
                    assertThat(gw.upstreams().pools()).doesNotContain(leaving);
                    assertThat(slow.get(10, TimeUnit.SECONDS).statusCode()).as("its request in flight finished")
                            .isEqualTo(200);
                    await(() -> two.openConnectionCount() == 0, "the leaving instance's connections closed");
                    assertThat(leaving.idleCount()).isZero();
                    assertThat(leaving.inUseCount()).isZero();
                    int servedByTwo = two.requestCount();

                    // a live reload while DNS is followed: the resolved addresses' pools are kept
                    Gateway.Swap swap = gw.reload(gw.assemble(config(two.port(),
                            "    filters: [ \"AddResponseHeader=X-Reloaded, yes\" ]\n")), null);
                    assertThat(swap).isEqualTo(new Gateway.Swap(2, 0, 0, null));
                    assertThat(gw.upstreams().get("api").endpoints()).extracting(Endpoint::label).containsExactly(
                            "svc.test:" + two.port() + "@127.0.0.3", "svc.test:" + two.port() + "@127.0.0.4");
                    await(() -> {
                        try {
                            return get(gw, "/after-reload").headers().firstValue("X-Reloaded").orElse("")
                                    .equals("yes");
                        } catch (Exception e) {
                            return false;
                        }
                    }, "the reloaded route serves");
                    int fourBefore = four.requestCount();
                    hosts.map("svc.test", "127.0.0.4");
                    await(() -> addresses(gw).equals(List.of("127.0.0.4")), "the reloaded set follows DNS too");
                    await(() -> four.requestCount() > fourBefore + 20, "traffic goes on");

                    stop.set(true);
                    CompletableFuture.allOf(traffic.toArray(CompletableFuture[]::new)).get(20, TimeUnit.SECONDS);
                    assertThat(two.requestCount()).as("no request reached the address that left")
                            .isEqualTo(servedByTwo);
                    assertThat(errors).as("client-visible errors").isEmpty();
                } finally {
                    stop.set(true);
                }
            }
        }
    }
}
