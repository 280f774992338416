package io.loomgate.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.observe.GatewayMetrics;
import io.loomgate.observe.GatewayTelemetry;
import io.loomgate.proxy.BoundRoutes;
import io.loomgate.route.RouteTable;
import io.loomgate.testkit.RawClient;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * While the memory gate holds new data-path connections back, the admin listener (as the gateway starts it) still
 * accepts: /health/live answers 200 and /health/ready answers 503, so an orchestrator sees the truth instead of a
 * ready gateway whose newcomers time out. Each health check is a new connection, as a kubelet's or a load balancer's
 * is; the second one is what an admin listener behind the gate never accepted.
 */
class MemoryGateHealthTest {

    @Test
    void whileTheGateIsShutReadinessAnswers503AndLivenessStillAnswers() throws Exception {
        GatewayTelemetry telemetry = GatewayTelemetry.of(new GatewayMetrics(), null, null);
        try (telemetry) {
            Listener admin = telemetry.startAdmin("127.0.0.1", 0,
                    () -> BoundRoutes.bind(new RouteTable(List.of()), r -> null), null, () -> true);
            int port = admin.port();
            assertThat(get(port, "/health/ready").status()).isEqualTo(200);
            // The gate is the process's, and a real full collection of this test JVM's nearly empty heap reopens it, as
            // does the gate's own recheck a second after it shuts: an attempt counts only if the gate stayed shut
            // through all its checks.
            for (int attempt = 0; attempt < 20; attempt++) {
                MemoryGate.PROCESS.afterFullCollection(Runtime.getRuntime().maxMemory());
                List<RawClient.Response> ready = new ArrayList<>();
                List<RawClient.Response> live = new ArrayList<>();
                IOException failed = null;
                try {
                    for (int i = 0; i < 3; i++) {
                        ready.add(get(port, "/health/ready"));
                        live.add(get(port, "/health/live"));
                    }
                } catch (IOException e) {
                    failed = e;
                }
                boolean stayedShut = MemoryGate.PROCESS.isFull();
                MemoryGate.PROCESS.afterFullCollection(0);
                if (!stayedShut) {
                    continue;
                }
                if (failed != null) {
                    throw new AssertionError("a health check got no answer while the gate was shut", failed);
                }
                assertThat(ready).extracting(RawClient.Response::status).containsOnly(503);
                assertThat(ready.get(0).bodyText()).contains("heap nearly full");
                assertThat(live).extracting(RawClient.Response::status).containsOnly(200);
                assertThat(get(port, "/health/ready").status()).as("gate open again").isEqualTo(200);
                return;
            }
            throw new AssertionError("the gate never stayed shut through one attempt's checks");
        }
    }

    /** One request on a new connection (10 s read deadline: a connection left in the backlog fails it). */
    private static RawClient.Response get(int port, String path) throws IOException {
        try (RawClient c = new RawClient(port)) {
            return c.send("GET " + path + " HTTP/1.1\r\nHost: admin\r\nConnection: close\r\n\r\n").read();
        }
    }
}
