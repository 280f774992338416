package io.loomgate.http2;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.http2.ProbeListeners.Gateway;
import io.loomgate.http2.ProbeListeners.Kind;
import io.loomgate.testkit.RawClient;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicNode;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;


/**
 * The hostile probe's slow clients ({@link HostileProbes}), on every listener kind: a slowloris head, a slow body, a
 * client that never reads a 32 MiB response, and idle connections half again over max-connections. Most of their time
 * is waiting out the gateway's bounds, so they run in lanes side by side ({@link HostileProbes.Waits}).
 */
@Execution(ExecutionMode.CONCURRENT) // the gateways side by side: see HostileProbes
class HostileSlowClientProbeTest extends HostileProbes {
    @Override
    void groups(Gateway g, BiConsumer<String, Stream<DynamicNode>> group) {
        Waits waits = new Waits(g);
        group.accept("slowClients", slowClients(g, waits));
    }

    // ------------------------------------------------------------------------------------------------- slow clients

    Stream<DynamicNode> slowClients(Gateway g, Waits waits) {
        return perKind(g, List.of(Kind.values()), k -> Stream.of(
                probe(k, "slowloris head -> " + (k.http2 ? "closed" : "408"), slowHead(), waits.lane("slow"), null),
                probe(k, "slow body -> " + (k.http2 ? "RST_STREAM or 408" : "408"), this::slowBody,
                        waits.lane("slow"), null),
                probe(k, "never reads a 32 MiB response -> closed at the write deadline", this::neverReads,
                        waits.lane("never reads " + k.label), null),
                // idle TCP connections are the same to the h1 and h2 kinds of one gateway: once per gateway; it holds
                // every connection, so it waits for the lanes (which then cannot start again: they start only once)
                k.http2 ? null : probe(k, "idle connections half again over max-connections -> each closed at "
                        + "header-timeout", this::idleBeyondTheLimit, null, waits.lanes))
                .filter(java.util.Objects::nonNull).toList());
    }

    /**
     * Connections that send nothing, half again as many as max-connections: those accepted are closed at
     * header-timeout (before a request, or before the ClientHello), those waiting in the backlog are accepted as
     * they go and closed in their turn; the bystander waits at most one round.
     */
    private void idleBeyondTheLimit(Kind k) throws Exception {
        List<Socket> idle = new ArrayList<>();
        try {
            long t0 = System.nanoTime();
            for (int i = 0; i < ProbeListeners.MAX_CONNECTIONS * 3 / 2; i++) {
                idle.add(listeners().tcp(k));
            }
            for (Socket s : idle) {
                s.setSoTimeout(4 * ProbeListeners.HEADER_TIMEOUT_MS + 10_000);
                try {
                    while (s.getInputStream().read() >= 0) {
                        // an answer (408, an alert) before the close: read to the end
                    }
                } catch (java.net.SocketException e) {
                    // reset: also a close (a timeout is not a SocketException: it fails the probe)
                }
            }
            assertThat((System.nanoTime() - t0) / 1_000_000).as("ms until every idle connection was closed")
                    .isLessThan(3L * ProbeListeners.HEADER_TIMEOUT_MS + 10_000);
        } finally {
            for (Socket s : idle) {
                s.close();
            }
        }
    }

    private Probe slowHead() {
        return k -> {
            long t0 = System.nanoTime();
            if (k.http2) {
                // the preface and SETTINGS, then a HEADERS frame's first bytes and nothing more
                try (RawH2Client c = listeners().h2(k)) {
                    byte[] block = RawH2Client.request("GET", "/slow");
                    c.raw(new byte[] {0, 0, (byte) block.length, Frames.HEADERS});
                    assertThat(c.isClosedByPeer()).as("closed").isTrue();
                }
            } else {
                try (RawClient c = listeners().h1(k)) {
                    String head = "GET /slow HTTP/1.1\r\nHost: h\r\nX-Pad: " + "p".repeat(200) + "\r\n\r\n";
                    Thread trickler = Thread.ofVirtual().start(() -> {
                        try {
                            for (int i = 0; i < head.length(); i++) {
                                c.send(head.substring(i, i + 1));
                                Thread.sleep(100);
                            }
                        } catch (Exception e) {
                            // closed by the gateway: expected
                        }
                    });
                    assertThat(c.read().status()).isEqualTo(408);
                    trickler.interrupt();
                }
            }
            assertThat((System.nanoTime() - t0) / 1_000_000).as("ms to the end")
                    .isLessThan(ProbeListeners.IDLE_TIMEOUT_MS + 8000);
        };
    }

    private void slowBody(Kind k) throws Exception {
        long t0 = System.nanoTime();
        if (k.http2) {
            try (RawH2Client c = listeners().h2(k)) {
                c.headers(1, RawH2Client.request("POST", "/slow-body", "content-length", "1000"), false);
                c.data(1, "0123456789".getBytes(), false);
                RawH2Client.Frame f = c.await(x -> x.stream() == 1 || x.type() == Frames.GOAWAY);
                assertThat(f).as("an answer on stream 1").isNotNull();
                if (f.type() == Frames.HEADERS) {
                    assertThat(c.fields(f)).containsEntry(":status", "408");
                } else {
                    assertThat(f.type()).as("frame type").isEqualTo(Frames.RST_STREAM);
                }
            }
        } else {
            try (RawClient c = listeners().h1(k)) {
                c.send("POST /slow-body HTTP/1.1\r\nHost: h\r\nContent-Length: 1000\r\n\r\n0123456789");
                assertThat(c.read().status()).isEqualTo(408);
            }
        }
        assertThat((System.nanoTime() - t0) / 1_000_000).as("ms to the answer")
                .isLessThan(ProbeListeners.READ_TIMEOUT_MS + 8000);
    }

    /** How long a client that never reads may wait for the gateway's cut: its send buffer filled, then read-timeout. */
    static final long NEVER_READS_CUT_MS = 60_000;

    /**
     * A client that never reads a byte of a 32 MiB response: its receive buffer is a few KB
     * ({@link ProbeListeners#tinyReceiveBuffer}; over HTTP/2 its flow-control windows are wide open, so that the
     * gateway's stream waits on the socket, not on a window). The gateway's write blocks once its own send buffer is
     * full and is cut at its write deadline (read-timeout): the exchange is counted {@code client_aborted} on its
     * route and leaves it (in flight 0: the exchange's buffers and origin connection let go); the client then gets
     * what the gateway's kernel had taken (its send buffer, sent after the close: about 3 MB here) and the end.
     * Waited for on the gateway's metrics, however long the response takes to fill the buffers: until session 61 the
     * client slept 6 s and then drained, and a response that came slower than about 1 MB/s (twice at load ~18, h2c and
     * h2+tls(conscrypt); every kind with an origin sending 0.7 MB/s) had not filled the buffers by then, so no write
     * had blocked, the drain kept the writes moving and the client read all 32 MiB (journal
     * 2026-12-02-s61-hostile12, "Second task").
     */
    private void neverReads(Kind k) throws Exception {
        String route = k.http2 ? "never-reads-h2" : "never-reads-h1";
        String path = "/big-" + (k.http2 ? "h2" : "h1") + "/" + IDS.incrementAndGet();
        double abortedBefore = failures(k, route, "client_aborted");
        Socket s = listeners().tinyReceiveBuffer(k, k.http2 ? "h2" : "http/1.1");
        try (s) {
            long t0 = System.nanoTime();
            if (k.http2) {
                RawH2Client c = new RawH2Client(s, Frames.SETTINGS_INITIAL_WINDOW_SIZE, Integer.MAX_VALUE);
                c.windowUpdate(0, Integer.MAX_VALUE - 65_535);
                c.get(1, path);
            } else {
                new RawClient(s).send("GET " + path + " HTTP/1.1\r\nHost: h\r\n\r\n");
            }
            // Reads nothing until the gateway has cut the exchange and counted it.
            long deadline = t0 + NEVER_READS_CUT_MS * 1_000_000;
            double aborted;
            double inFlight;
            while (true) {
                io.loomgate.testkit.PrometheusText m = listeners().metrics(k);
                aborted = sample(m, "loomgate_exchange_failures_total", route, "kind=\"client_aborted\"");
                inFlight = sample(m, "loomgate_route_in_flight", route, "");
                if ((aborted > abortedBefore && inFlight == 0) || System.nanoTime() > deadline) {
                    break;
                }
                Thread.sleep(100); // polled: the cut comes when the gateway's send buffer is full, then read-timeout
            }
            long cutMs = (System.nanoTime() - t0) / 1_000_000;
            assertThat(aborted - abortedBefore).as("exchanges on %s counted client_aborted within %d ms "
                    + "(in flight: %s; failures by kind: %s)", route, NEVER_READS_CUT_MS, inFlight,
                    failuresByKind(k, route)).isEqualTo(1);
            assertThat(inFlight).as("exchanges still in flight on " + route).isZero();
            long got = 0;
            String end = "EOF";
            s.setSoTimeout(10_000);
            InputStream in = s.getInputStream();
            byte[] buf = new byte[65536];
            try {
                for (int n; (n = in.read(buf)) > 0; ) {
                    got += n;
                }
            } catch (java.net.SocketTimeoutException e) {
                end = "no end within 10 s";
            } catch (IOException e) {
                end = e.toString(); // reset: also a close
            }
            System.out.printf("PROBE neverReads %s: cut and counted %d ms after the request, then %d bytes and %s%n",
                    k.label, cutMs, got, end);
            assertThat(end).as("how the connection ended after the cut (%d bytes read)", got)
                    .isNotEqualTo("no end within 10 s");
            assertThat(got).as("bytes read after the cut").isLessThan(ProbeListeners.BIG);
        }
    }

    private double failures(Kind k, String route, String kind) {
        return sample(listeners().metrics(k), "loomgate_exchange_failures_total", route, "kind=\"" + kind + "\"");
    }

    private String failuresByKind(Kind k, String route) {
        return listeners().metrics(k).toString().lines()
                .filter(l -> l.startsWith("loomgate_exchange_failures_total{") && l.contains("route=\"" + route + "\""))
                .toList().toString();
    }

    /** The sum of {@code name}'s samples on {@code route} that contain {@code label} (0 when there is none yet). */
    private static double sample(io.loomgate.testkit.PrometheusText m, String name, String route, String label) {
        return m.toString().lines()
                .filter(l -> l.startsWith(name + "{") && l.contains("route=\"" + route + "\"") && l.contains(label))
                .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1))).sum();
    }
}
