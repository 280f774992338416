package io.loomgate.http2;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.cli.Gateway;
import io.loomgate.observe.GatewayMetrics;
import io.loomgate.server.ConnectionListener;
import io.loomgate.testkit.PrometheusText;
import io.loomgate.testkit.RunningGateway;
import io.loomgate.testkit.TestOrigin;
import io.loomgate.testkit.TestOrigin.Reply;
import io.loomgate.upstream.PoolListener;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * An HTTP/2 client that stops reading a large answer (it never opens its window past the initial 65,535 bytes) is
 * reset at {@code read-timeout}, and the bytes it got are the ones counted: the access log's response body bytes and
 * {@code loomgate_response_body_bytes_total}. Until session 57 the count was of whole writes, so the write the shut
 * window cut in part was left out: 57,344 or 65,450 counted for the 65,535 the client had (session 57's slow-reader
 * hunt, every listener kind).
 */
class StalledReaderBytesCountedTest {
    @Test
    void theBytesAStalledHttp2ClientGotAreTheBytesCounted() throws Exception {
        GatewayMetrics metrics = new GatewayMetrics();
        String yaml = """
                server:
                  address: 127.0.0.1
                  port: 0
                  read-timeout: 1s
                admin:
                  port: 0
                routes:
                  - id: main
                    uri: ${ORIGIN}
                    predicates: [ "Path=/**" ]
                """;
        try (TestOrigin origin = new TestOrigin();
             RunningGateway gw = RunningGateway.start(yaml, Map.of("ORIGIN", origin.uri()),
                     new Gateway.Observers(metrics, PoolListener.NOOP, ConnectionListener.NOOP))) {
            origin.fallback(r -> Reply.ok("x".repeat(1 << 20)));
            try (RawH2Client c = new RawH2Client(gw.port())) {
                c.get(1, "/big");
                assertThat(c.fields(c.await(f -> f.type() == Frames.HEADERS && f.stream() == 1)))
                        .containsEntry(":status", "200");
                long data = 0;
                RawH2Client.Frame f;
                while ((f = c.await(g -> g.stream() == 1 && (g.type() == Frames.DATA
                        || g.type() == Frames.RST_STREAM))) != null && f.type() == Frames.DATA) {
                    data += f.payload().length;
                }
                assertThat(f).as("the stream is reset at read-timeout").isNotNull();
                assertThat(f.type()).isEqualTo(Frames.RST_STREAM);
                assertThat(data).as("DATA within the initial window").isEqualTo(65_535);
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!metrics.registry().scrape().contains("kind=\"client_aborted\"") && System.nanoTime() < deadline) {
                LockSupport.parkNanos(10_000_000);
            }
            String scrape = metrics.registry().scrape();
            assertThat(new PrometheusText(scrape).value("loomgate_response_body_bytes_total", "route=main"))
                    .as("bytes the client got (failures: %s)", scrape.lines()
                            .filter(l -> l.startsWith("loomgate_exchange_failures_total")).toList())
                    .isEqualTo(65_535);
        } finally {
            metrics.close();
        }
    }
}
