package io.loomgate.http2;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.loomgate.cli.Gateway;
import io.loomgate.observe.GatewayMetrics;
import io.loomgate.server.ConnectionListener;
import io.loomgate.testkit.PrometheusText;
import io.loomgate.testkit.RawClient;
import io.loomgate.testkit.RunningGateway;
import io.loomgate.testkit.TestOrigin;
import io.loomgate.testkit.TestOrigin.Effect;
import io.loomgate.testkit.TestOrigin.Reply;
import io.loomgate.upstream.PoolListener;
import java.io.InputStream;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.slf4j.LoggerFactory;

/**
 * An origin that fails mid-body (an HTTP/1.1 one closing 5 bytes short of its Content-Length 10, an HTTP/2 one
 * resetting its stream after 5 of 10 bytes): the client gets the head and 5 bytes, then a cut it can tell (a close
 * short of the length; RST_STREAM). Those 5 bytes reached it, so the access log's response body bytes and
 * {@code loomgate_response_body_bytes_total} count them (session 56's hunt: both said 0, the relay's count was lost
 * with its exception, so a download cut after 900 MB was logged as a 200 of 0 bytes). The warning says what the
 * client got, a 200 cut after 5 bytes, not the 502 it never saw.
 */
class PartialBodyCountedTest {
    @ParameterizedTest(name = "{0} origin, {1} client")
    @CsvSource({"HTTP/1.1, HTTP/1.1", "HTTP/1.1, HTTP/2", "HTTP/2, HTTP/1.1", "HTTP/2, HTTP/2"})
    void bytesRelayedBeforeTheOriginFailedAreCounted(String originKind, String client) throws Exception {
        GatewayMetrics metrics = new GatewayMetrics();
        ListAppender<ILoggingEvent> lines = new ListAppender<>();
        lines.start();
        Logger proxyLog = (Logger) LoggerFactory.getLogger("io.loomgate.proxy.ProxyHandler");
        proxyLog.addAppender(lines);
        try (TestOrigin h1 = new TestOrigin();
             HostileH2Origin h2 = new HostileH2Origin(null).on("short", (r, c) -> {
                 c.head(r.stream(), false, ":status", "200", "content-length", "10");
                 c.data(r.stream(), false, "AAAAA");
                 c.rst(r.stream(), 2); // INTERNAL_ERROR
             });
             RunningGateway gw = RunningGateway.start(H2cGatewayYaml.yaml(),
                     Map.of("ORIGIN", originKind.equals("HTTP/2") ? h2.uri() : h1.uri()),
                     new Gateway.Observers(metrics, PoolListener.NOOP, ConnectionListener.NOOP))) {
            h1.enqueue(Reply.raw("HTTP/1.1 200 OK", List.of("Content-Length: 10"), "AAAAA")
                    .with(Effect.CLOSE_AFTER_RESPONSE));
            if (client.equals("HTTP/2")) {
                try (RawH2Client c = new RawH2Client(gw.port())) {
                    c.get(1, "/x/short");
                    assertThat(c.fields(c.await(f -> f.type() == Frames.HEADERS && f.stream() == 1)))
                            .containsEntry(":status", "200");
                    int data = 0;
                    RawH2Client.Frame f;
                    while ((f = c.await(g -> g.stream() == 1 && (g.type() == Frames.DATA
                            || g.type() == Frames.RST_STREAM))) != null && f.type() == Frames.DATA) {
                        data += f.payload().length;
                    }
                    assertThat(data).as("DATA bytes before the reset").isEqualTo(5);
                    assertThat(f).as("the stream is reset, not ended").isNotNull();
                    assertThat(f.type()).isEqualTo(Frames.RST_STREAM);
                }
            } else {
                try (RawClient c = gw.raw()) {
                    c.send("GET /x/short HTTP/1.1\r\nHost: t\r\n\r\n");
                    InputStream in = c.socket().getInputStream();
                    byte[] all = in.readAllBytes(); // the gateway closes: the body is short of its length
                    String text = new String(all, java.nio.charset.StandardCharsets.ISO_8859_1);
                    assertThat(text).startsWith("HTTP/1.1 200").containsIgnoringCase("content-length: 10").endsWith("\r\n\r\nAAAAA");
                }
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (failures(metrics) == 0 && System.nanoTime() < deadline) {
                LockSupport.parkNanos(10_000_000);
            }
            assertThat(failures(metrics)).as("upstream_aborted").isEqualTo(1);
            assertThat(new PrometheusText(metrics.registry().scrape())
                    .value("loomgate_response_body_bytes_total", "route=main")).as("bytes the client got").isEqualTo(5);
            assertThat(lines.list).map(ILoggingEvent::getFormattedMessage).filteredOn(m -> m.contains("/x/short"))
                    .singleElement().asString().contains(": 200 cut after 5 body bytes, upstream ")
                    .doesNotContain(": 502 ");
        } finally {
            proxyLog.detachAppender(lines);
            metrics.close();
        }
    }

    private static double failures(GatewayMetrics metrics) {
        String text = metrics.registry().scrape();
        if (!text.contains("kind=\"upstream_aborted\"")) {
            return 0;
        }
        return new PrometheusText(text).value("loomgate_exchange_failures_total", "route=main",
                "kind=upstream_aborted");
    }
}
