package io.loomgate.observe;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.Test;

/**
 * A collector that accepts and never answers (a real socket): the batch export hangs on it, the bounded queue fills,
 * and every span after that is dropped at once and counted; no exchange waits for the collector.
 */
class BoundedSpanQueueTest {

    @Test
    void aStuckCollectorCostsDroppedSpansNeverABlockedRequest() throws Exception {
        try (ServerSocket collector = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            List<Socket> held = new ArrayList<>();
            Thread acceptor = Thread.ofVirtual().start(() -> {
                try {
                    while (true) {
                        held.add(collector.accept()); // kept open, never answered
                    }
                } catch (IOException closed) {
                    // the test is over
                }
            });
            SimpleMeterRegistry registry = new SimpleMeterRegistry();
            int queue = 8;
            TracingSupport.Tracer tracer = new OtelTracingSupport().start(new TracingSettings(
                    URI.create("http://127.0.0.1:" + collector.getLocalPort() + "/v1/traces"), 1.0, "test", null,
                    queue), registry);
            int exchanges = 200;
            long t0 = System.nanoTime();
            for (int i = 0; i < exchanges; i++) {
                ThreadLocalRandom r = ThreadLocalRandom.current();
                TracedExchange x = TracedExchange.get("/x", String.format("%016x%016x", r.nextLong(), r.nextLong() | 1),
                        String.format("%016x", r.nextLong() | 1), null);
                tracer.exchangeStart(x);
                tracer.routeMatched(x);
                tracer.exchangeEnd(x);
            }
            long millis = (System.nanoTime() - t0) / 1_000_000;
            // Generous: an export waiting on the collector would take its 10 s timeout per batch.
            assertThat(millis).as("200 exchanges' spans handed over").isLessThan(5_000);
            double dropped = registry.get("loomgate.tracing.spans.dropped").counter().count();
            // At most the queue and one batch in the hung export got through; the rest were dropped and counted.
            assertThat(dropped).isGreaterThanOrEqualTo(exchanges - 2.0 * queue);
            collector.close();
            acceptor.join();
            for (Socket s : held) {
                s.close();
            }
            // its collector is gone: no need to wait out the exporter's retries for the default close bound
            ((ExchangeSpans) tracer).close(Duration.ofMillis(200));
        }
    }
}
