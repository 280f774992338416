package io.loomgate.http2;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.cli.Gateway;
import io.loomgate.observe.GatewayMetrics;
import io.loomgate.server.ConnectionListener;
import io.loomgate.testkit.PrometheusText;
import io.loomgate.testkit.RawClient;
import io.loomgate.testkit.RunningGateway;
import io.loomgate.testkit.TestOrigin;
import io.loomgate.testkit.TestOrigin.Reply;
import io.loomgate.upstream.PoolListener;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * An exchange still running when the drain's deadline passes is cut by the gateway: it is counted and logged as
 * {@code drain_cut}, not as {@code client_aborted} (session 55's hunt: SIGTERM with Server-Sent-Event streams in
 * flight counted every cut stream as a client that left). Over HTTP/1.1 the relay's next write fails on the closed
 * socket; over HTTP/2 the connection's end cancels the stream. The client could tell either way (a body short of its
 * length); what this checks is the gateway's word for it. A WebSocket tunnel cut by the drain too (session 56: it
 * was logged as a plain 101 with no failure, since a tunnel ends quietly whichever side closes it).
 */
class DrainCutKindTest {
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"HTTP/1.1", "HTTP/2"})
    void anExchangeCutAtTheDrainsDeadlineIsTheDrainsNotTheClients(String client) throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        GatewayMetrics metrics = new GatewayMetrics();
        try (TestOrigin origin = new TestOrigin();
             RunningGateway gw = RunningGateway.start(H2cGatewayYaml.yaml(), Map.of("ORIGIN", origin.uri()),
                     new Gateway.Observers(metrics, PoolListener.NOOP, ConnectionListener.NOOP))) {
            // the head and "in" at once, "-flight" only once released: the exchange is mid-body at the deadline
            origin.enqueue(Reply.raw("HTTP/1.1 200 OK", List.of("Content-Length: 9"), "in", "-flight")
                    .gatedBy(release));
            AutoCloseable connection;
            if (client.equals("HTTP/2")) {
                RawH2Client c = new RawH2Client(gw.port());
                c.get(1, "/stream");
                assertThat(c.fields(c.await(f -> f.type() == Frames.HEADERS && f.stream() == 1)))
                        .containsEntry(":status", "200");
                connection = c;
            } else {
                RawClient c = gw.raw();
                c.send("GET /stream HTTP/1.1\r\nHost: drain.example\r\n\r\n");
                connection = c;
            }
            try {
                origin.takeRequest();
                assertThat(gw.gateway().listener().drain(Duration.ofMillis(300))).as("cut at the deadline").isFalse();
                release.countDown(); // the HTTP/1.1 relay writes the rest into the closed socket now
                assertCountedAsTheDrains(metrics);
                assertStatusClass(metrics, "GET", "2xx"); // the head the client got; the cut body is drain_cut's
            } finally {
                connection.close();
            }
        } finally {
            metrics.close();
        }
    }

    /**
     * Session 59: an exchange still waiting for a slow origin's head when the drain's deadline passes. Over HTTP/1.1
     * closing the client's socket did not end the handler's wait for its origin (nothing reads that socket meanwhile),
     * so the exchange ended only when the origin answered: after the drain had returned, when the process may have
     * exited already, with no access-log line and no count. The drain now cancels it as an HTTP/2 client's reset does,
     * and waits for the cancel's bound ({@code ClientCancel.LONGEST_WAIT}: an HTTP/1.1 origin awaited is let answer
     * for 1 s) and the unwinding; so it is counted, as the drain's, when the drain returns. HTTP/2 (whose connection's
     * end cancels the stream) must stay so.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"HTTP/1.1", "HTTP/2"})
    void anExchangeAwaitingASlowOriginAtTheDeadlineIsCountedWhenTheDrainReturns(String client) throws Exception {
        GatewayMetrics metrics = new GatewayMetrics();
        try (TestOrigin origin = new TestOrigin();
             RunningGateway gw = RunningGateway.start(H2cGatewayYaml.yaml(), Map.of("ORIGIN", origin.uri()),
                     new Gateway.Observers(metrics, PoolListener.NOOP, ConnectionListener.NOOP))) {
            origin.enqueue(Reply.ok("late").delayed(Duration.ofSeconds(20))); // no head until long after the drain
            AutoCloseable connection;
            if (client.equals("HTTP/2")) {
                RawH2Client c = new RawH2Client(gw.port());
                c.get(1, "/slow");
                connection = c;
            } else {
                RawClient c = gw.raw();
                c.send("GET /slow HTTP/1.1\r\nHost: drain.example\r\n\r\n");
                connection = c;
            }
            try {
                origin.takeRequest();
                assertThat(gw.gateway().listener().drain(Duration.ofMillis(200))).as("cut at the deadline").isFalse();
                // No wait here: what the drain's return does not cover is lost when the process exits after it.
                assertThat(failures(metrics, "drain_cut")).as("counted as the drain's when the drain returns")
                        .isEqualTo(1);
                assertThat(failures(metrics, "client_aborted") + failures(metrics, "upstream_timeout")
                        + failures(metrics, "upstream_reset")).isZero();
                assertStatusClass(metrics, "GET", "none"); // nothing was sent (session 60: it was 5xx, a 503)
            } finally {
                connection.close();
            }
        } finally {
            metrics.close();
        }
    }

    /**
     * Session 60: an HTTP/1.1 client that closes its connection during the drain, while its exchange waits for a slow
     * origin (for the head, or for the body's next bytes). Nothing read its socket once the request was read, so the
     * drain's deadline came first and the exchange was logged {@code drain_cut}: the access log and the metric blamed
     * the drain for a client that had gone. The drain now looks for the client's end before its cut. (HTTP/2: the
     * connection's reader sees the close, {@link #streamsWhoseClientLeavesDuringTheDrainAreCountedBeforeTheDrainReturns}.)
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"awaiting the head", "mid-body"})
    void anHttp11ClientThatLeavesDuringTheDrainIsCountedAsGone(String phase) throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        GatewayMetrics metrics = new GatewayMetrics();
        try (TestOrigin origin = new TestOrigin();
             RunningGateway gw = RunningGateway.start(H2cGatewayYaml.yaml(), Map.of("ORIGIN", origin.uri()),
                     new Gateway.Observers(metrics, PoolListener.NOOP, ConnectionListener.NOOP))) {
            origin.enqueue(phase.equals("mid-body")
                    ? Reply.raw("HTTP/1.1 200 OK", List.of("Content-Length: 9"), "in", "-flight").gatedBy(release)
                    : Reply.ok("late").delayed(Duration.ofSeconds(20)));
            RawClient c = gw.raw();
            try {
                c.send("GET /slow HTTP/1.1\r\nHost: drain.example\r\n\r\n");
                origin.takeRequest();
                if (phase.equals("mid-body")) { // the head and "in" came: the relay waits for the rest
                    assertThat(readUntil(c.socket().getInputStream(), "\r\n\r\nin")).startsWith("HTTP/1.1 200");
                }
                CompletableFuture<Boolean> drained = new CompletableFuture<>();
                Thread.ofVirtual().start(() -> {
                    try {
                        drained.complete(gw.gateway().listener().drain(Duration.ofMillis(400)));
                    } catch (Throwable e) {
                        drained.completeExceptionally(e);
                    }
                });
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (!gw.gateway().listener().isStopping() && System.nanoTime() < deadline) {
                    LockSupport.parkNanos(1_000_000);
                }
                c.close(); // the client leaves mid-drain, its answer not come
                assertThat(drained.get(20, TimeUnit.SECONDS)).as("cut at the deadline").isFalse();
                // No wait here: what the drain's return does not cover is lost when the process exits after it.
                assertThat(failures(metrics, "client_aborted")).as("the client left").isEqualTo(1);
                assertThat(failures(metrics, "drain_cut")).isZero();
                // the head it got, or none (session 60: a client gone before a head was counted 4xx, a 400)
                assertStatusClass(metrics, "GET", phase.equals("mid-body") ? "2xx" : "none");
            } finally {
                release.countDown();
                c.close();
            }
        } finally {
            metrics.close();
        }
    }

    /**
     * Session 58's hunt: two HTTP/2 streams in flight at the drain, their client closes its socket after GOAWAY. The
     * connection's reader ended at once, the connection left the listener's open set, and the drain returned
     * "drained cleanly" while the streams' handlers were still unwinding: the process exited under them and neither
     * exchange was logged or counted. The connection now ends after its handlers, so both are counted (the client
     * left: {@code client_aborted}) by the time the drain returns.
     */
    @Test
    void streamsWhoseClientLeavesDuringTheDrainAreCountedBeforeTheDrainReturns() throws Exception {
        GatewayMetrics metrics = new GatewayMetrics();
        try (TestOrigin origin = new TestOrigin();
             RunningGateway gw = RunningGateway.start(H2cGatewayYaml.yaml(), Map.of("ORIGIN", origin.uri()),
                     new Gateway.Observers(metrics, PoolListener.NOOP, ConnectionListener.NOOP))) {
            // slow GETs: no answer yet, the handlers wait for the origin's head
            Reply slow = Reply.ok("late").delayed(Duration.ofSeconds(2));
            origin.enqueue(slow, slow);
            try (RawH2Client c = new RawH2Client(gw.port())) {
                c.get(1, "/slow");
                c.get(3, "/slow");
                origin.takeRequest();
                origin.takeRequest();
                CompletableFuture<Boolean> drained = new CompletableFuture<>();
                Thread.ofVirtual().start(() -> {
                    try {
                        drained.complete(gw.gateway().listener().drain(Duration.ofSeconds(10)));
                    } catch (Throwable e) {
                        drained.completeExceptionally(e);
                    }
                });
                assertThat(c.awaitGoAway()).as("the drain began").isNotNull();
                c.close(); // the client leaves mid-drain, both streams unfinished
                assertThat(drained.get(20, TimeUnit.SECONDS)).as("every connection ended within the bound").isTrue();
                // No wait here: what the drain's return does not cover is lost when the process exits after it.
                assertThat(failures(metrics, "client_aborted") + failures(metrics, "drain_cut"))
                        .as("both streams counted when the drain returns").isEqualTo(2);
                assertThat(requests(metrics, "GET", "none")).as("neither got a head (session 60: 4xx)").isEqualTo(2);
            }
        } finally {
            metrics.close();
        }
    }

    @Test
    void aWebSocketTunnelCutAtTheDrainsDeadlineIsTheDrains() throws Exception {
        GatewayMetrics metrics = new GatewayMetrics();
        try (ServerSocket origin = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            Thread.ofVirtual().start(() -> echoAfterUpgrade(origin));
            try (RunningGateway gw = RunningGateway.start(H2cGatewayYaml.yaml(),
                    Map.of("ORIGIN", "http://127.0.0.1:" + origin.getLocalPort()),
                    new Gateway.Observers(metrics, PoolListener.NOOP, ConnectionListener.NOOP));
                 RawClient c = gw.raw()) {
                c.send("GET /ws HTTP/1.1\r\nHost: drain.example\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n"
                        + "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n");
                assertThat(c.read().status()).isEqualTo(101);
                c.send("ping");
                assertThat(new String(c.socket().getInputStream().readNBytes(4), StandardCharsets.US_ASCII))
                        .as("the tunnel carries bytes both ways").isEqualTo("PING");
                assertThat(gw.gateway().listener().drain(Duration.ofMillis(300))).as("cut at the deadline").isFalse();
                assertCountedAsTheDrains(metrics);
                assertStatusClass(metrics, "GET", "1xx"); // the 101 the client got
            }
        } finally {
            metrics.close();
        }
    }

    /** The origin: one connection, 101 to its upgrade, then an upper-casing echo until the gateway's side ends. */
    private static void echoAfterUpgrade(ServerSocket origin) {
        try (Socket s = origin.accept()) {
            InputStream in = s.getInputStream();
            StringBuilder head = new StringBuilder();
            while (!head.toString().endsWith("\r\n\r\n")) {
                int b = in.read();
                if (b < 0) {
                    return;
                }
                head.append((char) b);
            }
            OutputStream out = s.getOutputStream();
            out.write(("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                    + "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            out.flush();
            byte[] buf = new byte[64];
            for (int n; (n = in.read(buf)) > 0; ) {
                out.write(new String(buf, 0, n, StandardCharsets.US_ASCII).toUpperCase()
                        .getBytes(StandardCharsets.US_ASCII));
                out.flush();
            }
        } catch (Exception e) {
            // the test is over
        }
    }

    /** What the client read up to and with {@code end} (the socket's read timeout bounds each read). */
    private static String readUntil(InputStream in, String end) throws java.io.IOException {
        StringBuilder read = new StringBuilder();
        while (!read.toString().endsWith(end)) {
            int b = in.read();
            assertThat(b).as("read so far: %s", read).isNotNegative();
            read.append((char) b);
        }
        return read.toString();
    }

    /** Waits (10 s at most) for the exchange's end to be counted, then checks it is the drain's, not the client's. */
    private static void assertCountedAsTheDrains(GatewayMetrics metrics) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (failures(metrics, "drain_cut") + failures(metrics, "client_aborted") == 0
                && System.nanoTime() < deadline) {
            LockSupport.parkNanos(10_000_000);
        }
        assertThat(failures(metrics, "drain_cut")).isEqualTo(1);
        assertThat(failures(metrics, "client_aborted")).isZero();
    }

    /**
     * The route's one exchange was counted in {@code loomgate_requests_total} under this status class and no other:
     * the class of the head its client got, or {@code none} when it got none (session 60), as the access log's 499.
     */
    private static void assertStatusClass(GatewayMetrics metrics, String method, String statusClass) {
        for (String c : List.of("none", "1xx", "2xx", "3xx", "4xx", "5xx")) {
            assertThat(requests(metrics, method, c)).as("%s requests with status class %s", method, c)
                    .isEqualTo(c.equals(statusClass) ? 1 : 0);
        }
    }

    /** The route's requests of that method and status class; 0 before the first. */
    private static double requests(GatewayMetrics metrics, String method, String statusClass) {
        String text = metrics.registry().scrape();
        String labels = "method=\"" + method + "\"";
        if (text.lines().noneMatch(l -> l.startsWith("loomgate_requests_total{") && l.contains(labels)
                && l.contains("route=\"main\"") && l.contains("status=\"" + statusClass + "\""))) {
            return 0;
        }
        return new PrometheusText(text).value("loomgate_requests_total", "route=main", "method=" + method,
                "status=" + statusClass);
    }

    /** The route's failures of that kind; 0 before the first (the counters are made on first use). */
    private static double failures(GatewayMetrics metrics, String kind) {
        String text = metrics.registry().scrape();
        if (!text.contains("kind=\"" + kind + "\"")) {
            return 0;
        }
        return new PrometheusText(text).value("loomgate_exchange_failures_total", "route=main", "kind=" + kind);
    }
}
