package io.loomgate.upstream;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.server.H2cWire;
import io.loomgate.testkit.FreePorts;
import io.loomgate.testkit.H2Origin;
import io.loomgate.testkit.SlowAccept;
import io.loomgate.testkit.StalledHandshake;
import io.loomgate.testkit.TestPki;
import io.loomgate.tls.ClientTls;
import io.loomgate.tls.ClientTlsSettings;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Health checks speak the protocol the endpoint's traffic uses, against real origins on real sockets: h2 for
 * {@code h2c://}, TLS for {@code https://}, h2 over TLS when ALPN picks it for an {@code upstream.http2} endpoint
 * (HTTP/1.1 over TLS when the origin picks that). The origin records the version each request came in with.
 */
class HealthCheckProtocolTest {
    private static TestPki pki;
    private static TestPki.Issued cert;

    @BeforeAll
    static void certificates() throws Exception {
        TestPki.requireOpenssl();
        pki = TestPki.create("health check CA");
        cert = pki.issue("origin", "localhost", "localhost");
    }

    private static HealthChecker checker(PoolSettings settings) {
        // probe() uses neither the upstream nor the member: only the check and the pool's TLS and limits
        // (a generous timeout: the machine running the tests may be loaded)
        return new HealthChecker(null, new Balancing.HealthCheck("/health", Duration.ofSeconds(2),
                Duration.ofSeconds(10), 2, 2, 200, 399), settings);
    }

    private static PoolSettings trusting(TestPki ca) throws Exception {
        return PoolSettings.DEFAULTS.withTls(ClientTls.create(ClientTlsSettings.DEFAULTS.withTrust(ca.caCert())));
    }

    @Test
    void anH2cEndpointIsCheckedOverHttp2() throws Exception {
        try (H2Origin origin = H2Origin.h2c()) {
            String problem = checker(PoolSettings.DEFAULTS).probe(new Endpoint("127.0.0.1", origin.port(), false,
                    true));
            assertThat(problem).isNull();
            assertThat(origin.versions()).containsExactly("HTTP/2.0");
        }
    }

    @Test
    void anHttpsHttp2EndpointIsCheckedOverH2ByAlpn() throws Exception {
        try (H2Origin origin = H2Origin.tls(cert, List.of("h2"))) {
            String problem = checker(trusting(pki)).probe(new Endpoint("localhost", origin.port(), true, true));
            assertThat(problem).isNull();
            assertThat(origin.versions()).containsExactly("HTTP/2.0");
        }
    }

    @Test
    void anHttpsHttp2EndpointWhoseOriginPicksHttp11IsCheckedOverHttp11OnTls() throws Exception {
        try (H2Origin origin = H2Origin.tls(cert, List.of("http/1.1"))) {
            String problem = checker(trusting(pki)).probe(new Endpoint("localhost", origin.port(), true, true));
            assertThat(problem).isNull();
            assertThat(origin.versions()).containsExactly("HTTP/1.1");
        }
    }

    @Test
    void aPlainHttpsEndpointIsCheckedOverTls() throws Exception {
        try (H2Origin origin = H2Origin.tls(cert, List.of("http/1.1"))) {
            String problem = checker(trusting(pki)).probe(new Endpoint("localhost", origin.port(), true, false));
            assertThat(problem).isNull();
            assertThat(origin.requests()).isEqualTo(1);
        }
    }

    @Test
    void anOriginWithACertificateFromAnotherCaFailsTheCheck() throws Exception {
        TestPki other = TestPki.create("some other CA");
        try (H2Origin origin = H2Origin.tls(cert, List.of("h2"))) {
            String problem = checker(trusting(other)).probe(new Endpoint("localhost", origin.port(), true, true));
            assertThat(problem).startsWith("GET /health failed:").contains("localhost");
            assertThat(origin.requests()).isZero();
        }
    }

    /**
     * A check's dial has one budget, the check's timeout, as a request's has {@code connect-timeout}: an https origin
     * whose TCP connect takes about 1 s of 1.5 s ({@link SlowAccept}) and whose handshake then stalls fails the check
     * when the timeout ends, with a one-stage stalled origin checked at the same moment, not a timeout later.
     */
    @Test
    void aCheckOfAnOriginSlowAtTwoStagesEndsWithinItsTimeout() throws Exception {
        HealthChecker checker = new HealthChecker(null, new Balancing.HealthCheck("/health", Duration.ofSeconds(2),
                Duration.ofMillis(1_500), 2, 2, 200, 399), trusting(pki)); // TLS context made before the clock
        try (SlowAccept twoStage = new SlowAccept(); StalledHandshake oneStage = new StalledHandshake()) {
            CompletableFuture<long[]> slowTook = new CompletableFuture<>();
            CompletableFuture<long[]> oneTook = new CompletableFuture<>();
            List<String> problems = new CopyOnWriteArrayList<>();
            for (var c : List.of(Map.entry(twoStage.port(), slowTook),
                    Map.entry(oneStage.port(), oneTook))) {
                Thread.ofVirtual().start(() -> {
                    long t0 = System.nanoTime();
                    problems.add(checker.probe(new Endpoint("127.0.0.1", c.getKey(), true, false)));
                    c.getValue().complete(new long[] {(System.nanoTime() - t0) / 1_000_000});
                });
            }
            twoStage.openAfter(600); // the slow stage: accepts from 0.6 s, the SYN comes again at about 1 s
            long slow = slowTook.get(20, TimeUnit.SECONDS)[0];
            long one = oneTook.get(20, TimeUnit.SECONDS)[0];
            System.out.printf("checks: two stages %d ms, one stage %d ms: %s%n", slow, one, problems);
            assertThat(problems).hasSize(2).allSatisfy(p -> assertThat(p).startsWith("GET /health failed:")
                    .contains("TLS handshake with").contains("timed out after 1500ms"));
            assertThat(Math.abs(slow - one)).as("two slow stages end with one stalled stage").isLessThan(500);
        }
    }

    @Test
    void aClosedPortFailsTheH2cCheck() throws Exception {
        int port = FreePorts.refused();
        String problem = checker(PoolSettings.DEFAULTS).probe(new Endpoint("127.0.0.1", port, false, true));
        assertThat(problem).startsWith("GET /health failed:");
    }
    /**
     * A check whose origin floods (PINGs past the control-frame bound) ends its connection with GOAWAY
     * ENHANCE_YOUR_CALM, and the origin must be able to read it: the check's connection lingers as the request
     * path's do (half-close, read and throw away within bounds), instead of closing with the flood unread in its
     * receive buffer, which makes the kernel send a RST that can discard the GOAWAY before the origin reads it.
     * Ten checks, each its own connection: every origin reads GOAWAY ENHANCE_YOUR_CALM and then the end of the stream.
     */
    @Test
    void anH2cCheckEndedForAFloodLetsTheOriginReadItsGoAway() throws Exception {
        List<String> wrong = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            try (ServerSocket server = new ServerSocket(0, 5, InetAddress.getLoopbackAddress())) {
                CompletableFuture<String> seen = new CompletableFuture<>();
                Thread.ofVirtual().start(() -> seen.complete(floodAndRead(server)));
                String problem = checker(PoolSettings.DEFAULTS).probe(new Endpoint("127.0.0.1",
                        server.getLocalPort(), false, true));
                assertThat(problem).as("the check's verdict").isNotNull();
                String s = seen.get(20, TimeUnit.SECONDS);
                if (!s.equals("GOAWAY 11, then EOF")) {
                    wrong.add("check " + i + ": " + s);
                }
            }
        }
        assertThat(wrong).as("what the flooding origin read on each check's connection").isEmpty();
    }

    /**
     * The flooding origin's side of one check: SETTINGS, then on the check's HEADERS 3,000 PINGs in one write, then
     * everything the gateway sends read to the end. Returns the GOAWAY's error code and how the connection ended.
     */
    private static String floodAndRead(ServerSocket server) {
        try (Socket s = server.accept()) {
            s.setSoTimeout(15_000);
            DataInputStream in = new DataInputStream(s.getInputStream());
            OutputStream out = s.getOutputStream();
            in.readFully(new byte[24]); // the preface
            out.write(H2cWire.frame(H2cWire.SETTINGS, 0, 0, new byte[0]));
            out.flush();
            while (true) {
                int len = (in.readUnsignedByte() << 16) | in.readUnsignedShort();
                int type = in.readUnsignedByte();
                in.readFully(new byte[5 + len]); // flags, stream id, payload
                if (type == 0x1) {
                    break; // the check's request
                }
            }
            ByteArrayOutputStream flood = new ByteArrayOutputStream();
            for (int i = 0; i < 3000; i++) {
                flood.write(H2cWire.frame(H2cWire.PING, 0, 0, new byte[8]));
            }
            try {
                out.write(flood.toByteArray());
                out.flush();
            } catch (IOException e) {
                return "the flood's write failed: " + e.getMessage();
            }
            String goAway = "no GOAWAY"; // or each GOAWAY's error code, in order
            while (true) {
                int len;
                int type;
                byte[] rest;
                try {
                    len = (in.readUnsignedByte() << 16) | in.readUnsignedShort();
                    type = in.readUnsignedByte();
                    rest = new byte[5 + len];
                    in.readFully(rest);
                } catch (EOFException e) {
                    return goAway + ", then EOF";
                } catch (IOException e) {
                    return goAway + ", then " + e.getMessage();
                }
                if (type == 0x7) {
                    goAway = (goAway.startsWith("no") ? "GOAWAY" : goAway) + " " + (((rest[9] & 0xff) << 24) | ((rest[10] & 0xff) << 16)
                            | ((rest[11] & 0xff) << 8) | (rest[12] & 0xff));
                }
            }
        } catch (IOException e) {
            return "failed: " + e;
        }
    }
}
