package io.loomgate.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.FreePorts;
import io.loomgate.testkit.RawClient;
import io.loomgate.testkit.TestOrigin;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Every exchange, however it ends, is reported to the listeners exactly once: exchangeEnd or exchangeFailed. */
class ExchangeEndReportedOnceTest {

    @Test
    void eachWayAnExchangeCanEndIsReportedOnce() throws Exception {
        int closedPort = FreePorts.refused(); // held, never listening: refused
        try (TestOrigin origin = new TestOrigin();
             ProxyRig rig = new ProxyRig("ok", "/ok", origin.port(), "down", "/down", closedPort);
             RawClient client = new RawClient(rig.port())) {
            client.send("OPTIONS * HTTP/1.1\r\nHost: t\r\n\r\n");
            assertThat(client.read().status()).isEqualTo(200);
            client.send("GET /ok/1 HTTP/1.1\r\nHost: t\r\n\r\n");
            assertThat(client.read().status()).isEqualTo(200);
            client.send("GET /nowhere HTTP/1.1\r\nHost: t\r\n\r\n");
            assertThat(client.read().status()).isEqualTo(404);
            client.send("GET /down/1 HTTP/1.1\r\nHost: t\r\n\r\n");
            assertThat(client.read().status()).isEqualTo(502);
            client.send("GET /ok/a/../b HTTP/1.1\r\nHost: t\r\n\r\n");
            assertThat(client.read().status()).isEqualTo(400);

            awaitEvents(rig, 5);
            assertThat(rig.events).containsExactly("end null 200", "end ok 200", "failed null 404",
                    "failed down 502", "failed null 400");
            // Every attempt, the refused one too, ended before its exchange did: nothing is left in flight.
            assertThat(rig.upstreams.pools()).allSatisfy(p -> assertThat(p.state().inFlight()).isZero());
            assertThat(rig.upstreams.pools()).allSatisfy(p -> assertThat(p.inUseCount()).isZero());
        }
    }

    @Test
    void swappedRoutesServeTheNextRequest() throws Exception {
        try (TestOrigin origin = new TestOrigin();
             ProxyRig rig = new ProxyRig("old", "/old", origin.port());
             RawClient client = new RawClient(rig.port())) {
            client.send("GET /old/1 HTTP/1.1\r\nHost: t\r\n\r\n");
            assertThat(client.read().status()).isEqualTo(200);

            BoundRoutes before = rig.proxy.routes();
            rig.proxy.swapRoutes(rig.bind("old", "/new", origin.port()));

            client.send("GET /old/2 HTTP/1.1\r\nHost: t\r\n\r\n");
            assertThat(client.read().status()).isEqualTo(404);
            client.send("GET /new/3 HTTP/1.1\r\nHost: t\r\n\r\n");
            assertThat(client.read().status()).isEqualTo(200);
            assertThat(rig.proxy.routes()).isNotSameAs(before);
            assertThat(origin.received()).extracting(TestOrigin.Recorded::target).containsExactly("/old/1", "/new/3");
        }
    }

    private static void awaitEvents(ProxyRig rig, int n) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (rig.events.size() < n && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
    }
}
