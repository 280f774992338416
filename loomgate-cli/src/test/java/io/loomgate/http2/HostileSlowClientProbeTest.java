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

    private void neverReads(Kind k) throws Exception {
        Socket s;
        if (k.http2) {
            RawH2Client c = listeners().h2(k, Frames.SETTINGS_INITIAL_WINDOW_SIZE, Integer.MAX_VALUE);
            c.windowUpdate(0, Integer.MAX_VALUE - 65_535);
            c.get(1, "/big");
            s = c.socket();
        } else {
            RawClient c = listeners().h1(k);
            c.send("GET /big HTTP/1.1\r\nHost: h\r\n\r\n");
            s = c.socket();
        }
        try (s) {
            // Read nothing for the write deadline and more, then drain: the gateway must have given up first.
            Thread.sleep(ProbeListeners.READ_TIMEOUT_MS * 3L);
            long got = 0;
            long t1 = System.nanoTime();
            InputStream in = s.getInputStream();
            byte[] buf = new byte[65536];
            s.setSoTimeout(5000);
            try {
                for (int n; (n = in.read(buf)) > 0; ) {
                    got += n;
                }
            } catch (IOException e) {
                // reset: also a close
            }
            System.out.printf("PROBE neverReads %s: %d bytes, drained in %d ms%n", k.label, got,
                    (System.nanoTime() - t1) / 1_000_000);
            assertThat(got).as("bytes read before the end").isLessThan(ProbeListeners.BIG);
        }
    }
}
