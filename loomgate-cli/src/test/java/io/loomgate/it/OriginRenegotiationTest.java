package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.FreePorts;
import io.loomgate.testkit.RunningGateway;
import io.loomgate.testkit.TestPki;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * An https origin that asks to renegotiate (TLS 1.2 HelloRequest) after the gateway's request reached it and before
 * it answers: the gateway's client (JSSE, or Conscrypt in the build's Conscrypt pass) must give a clear answer, never
 * hang. Python's {@code ssl} cannot send a HelloRequest; {@code openssl s_server} does on its {@code r} command
 * (a line on its standard input), so the origin is a real OpenSSL server driven through its stdin, whose other input
 * is written to the connection as it is (with {@code -crlf}, LF as CRLF).
 *
 * <p>What each client does (session 44, OpenSSL 3.0.19 as the origin): both JSSE and Conscrypt renegotiate (RFC 5746
 * secure renegotiation, which both sides support: a second full handshake on the connection); asked ten times before
 * the answer, they renegotiated ten times (0.3 s) and relayed the 200. Neither can be told to refuse, as Envoy's
 * (BoringSSL, {@code allow_renegotiation} off by default) and Go's ({@code RenegotiateNever}) clients do, so
 * {@code ClientTls} ends the connection once a renegotiation completes: one per connection (told on the provider's
 * thread, so one more may have started by then), and the exchange a 502.
 * JSSE tells it (a HandshakeCompletedListener registered after the first handshake); Conscrypt's socket did not, so
 * since branch conscryptcut the gateway drives Conscrypt's engine itself towards origins, and its engine loop refuses
 * the first HelloRequest (the ClientHello for it goes out with the close_notify): two ClientHellos and a 502.
 */
class OriginRenegotiationTest {
    private static final int ROUTE_TIMEOUT_MS = 3000;

    @Test
    void anOriginAskingToRenegotiateGetsAClearAnswerNeverAHang() throws Exception {
        Seen s = renegotiations(1);
        // The gateway's client (either provider) renegotiates once, then ClientTls ends the connection: the answer
        // the origin writes after it is a 502 (the connection gone before it was read), or, should it have been read
        // first, relayed; never a hang.
        assertThat(s.clientHellos()).as("ClientHellos the origin read (-msg): %s", s.log()).isEqualTo(2);
        assertThat(s.status()).as("the answer: %s", s.body()).isIn(502, 200);
    }

    /**
     * The same origin asking ten times over before it answers: before session 44's fix each HelloRequest cost the
     * gateway a full client handshake (11 ClientHellos, then the 200), bounded only by the route's timeout; now the
     * connection ends after the first.
     */
    @Test
    void anOriginAskingAgainAndAgainGetsOneRenegotiationAndTheConnectionEnds() throws Exception {
        Seen s = renegotiations(10);
        // JSSE tells ClientTls on a thread of its own once the renegotiation completed, while the origin's next
        // HelloRequest (asked as soon as the gateway's ClientHello showed) may already be answered: one more
        // handshake can start before the close (3 ClientHellos in a clean-clone run at load 6), never the ten asked.
        // Conscrypt's engine loop refuses on the reader's thread at the first HelloRequest: 2.
        assertThat(s.clientHellos()).as("ClientHellos the origin read (-msg): %s", s.log()).isBetween(2L, 4L);
        assertThat(s.status()).as("the answer: %s", s.body()).isEqualTo(502);
    }

    record Seen(int status, String body, long clientHellos, long ms, List<String> log) {
    }

    /** One request through the gateway to an origin that asks {@code times} renegotiations before it answers. */
    private static Seen renegotiations(int times) throws Exception {
        TestPki.requireOpenssl();
        TestPki pki = TestPki.create("renegotiation CA");
        TestPki.Issued cert = pki.issue("origin", "localhost", "localhost");
        SServer origin = SServer.start(cert);
        Process server = origin.process();
        List<String> out = origin.out();
        int port = origin.port();
        try (RunningGateway gateway = RunningGateway.start("""
                server:
                  address: 127.0.0.1
                  port: 0
                upstream:
                  connect-timeout: 2s
                  ssl:
                    provider: ${TLS_PROVIDER}
                    trust-certificate: ${CA}
                routes:
                  - { id: reneg, uri: "https://localhost:${PORT}", predicates: [ "Path=/reneg/**" ], timeout: "${T}ms" }
                """, Map.of("CA", pki.caCert().toString(), "PORT", Integer.toString(port),
                "T", Integer.toString(ROUTE_TIMEOUT_MS)))) {
            long t0 = System.nanoTime();
            CompletableFuture<HttpResponse<String>> answer = CompletableFuture.supplyAsync(() -> {
                try {
                    return gateway.send(gateway.request("/reneg/x").timeout(Duration.ofSeconds(20)));
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            });
            awaitLine(out, l -> l.startsWith("GET /reneg/x"), "the request at the origin", 1);
            OutputStream stdin = server.getOutputStream();
            for (int i = 1; i <= times && !answer.isDone(); i++) {
                stdin.write("r\n".getBytes(StandardCharsets.ISO_8859_1)); // HelloRequest
                stdin.flush();
                int asked = i;
                // the gateway's ClientHello for it (the next one is asked only once this one is under way), or the
                // connection's end (s_server says so, and the gateway answers)
                long end = System.nanoTime() + 10_000_000_000L;
                while (!answer.isDone() && out.stream().filter(l -> l.contains("ClientHello")).count() < asked + 1
                        && System.nanoTime() < end) {
                    Thread.sleep(10);
                }
            }
            if (!answer.isDone()) {
                stdin.write("HTTP/1.1 200 OK\nContent-Length: 2\nConnection: close\n\nok".getBytes(
                        StandardCharsets.ISO_8859_1));
                stdin.flush();
            }
            HttpResponse<String> r = answer.get(20, TimeUnit.SECONDS);
            long ms = (System.nanoTime() - t0) / 1_000_000;
            long hellos = out.stream().filter(l -> l.contains("ClientHello")).count();
            System.out.println("renegotiation x" + times + " with upstream.ssl.provider " + RunningGateway.tlsProvider()
                    + ": " + r.statusCode() + " " + r.body().strip() + " after " + ms + " ms, " + hellos
                    + " ClientHellos");
            assertThat(ms).as("answered within the route's timeout and a margin").isLessThan(ROUTE_TIMEOUT_MS + 2000);
            return new Seen(r.statusCode(), r.body(), hellos, ms, out);
        } finally {
            server.destroy();
            server.waitFor(5, TimeUnit.SECONDS);
        }
    }

    /**
     * {@code openssl s_server} listening on a free port, its output lines in {@code out}. It takes the port on its
     * command line, so the port is probed first; one lost to another socket before s_server bound it ("Address
     * already in use") is started again on another port ({@link FreePorts}).
     */
    private record SServer(Process process, List<String> out, int port) {
        static SServer start(TestPki.Issued cert) throws Exception {
            return FreePorts.start(port -> {
                Process server = new ProcessBuilder("openssl", "s_server", "-accept", "127.0.0.1:" + port, "-tls1_2",
                        "-cert", cert.cert().toString(), "-key", cert.key().toString(), "-crlf", "-msg")
                        .redirectErrorStream(true).start();
                List<String> out = new CopyOnWriteArrayList<>();
                Thread reader = Thread.ofVirtual().start(() -> {
                    try (BufferedReader r = new BufferedReader(new InputStreamReader(server.getInputStream(),
                            StandardCharsets.ISO_8859_1))) {
                        for (String line; (line = r.readLine()) != null; ) {
                            out.add(line);
                        }
                    } catch (Exception e) {
                        // the server was stopped
                    }
                });
                long end = System.nanoTime() + 10_000_000_000L;
                while (out.stream().noneMatch(l -> l.startsWith("ACCEPT"))) {
                    if (!server.isAlive() || System.nanoTime() > end) {
                        server.destroy();
                        server.waitFor(5, TimeUnit.SECONDS);
                        reader.join(5_000); // its last lines: why it exited
                        throw new IllegalStateException("s_server not listening on " + port + ": " + out);
                    }
                    Thread.sleep(10);
                }
                return new SServer(server, out, port);
            });
        }
    }

    /** Waits (polling, 10 s at most) until {@code count} lines of the origin's output match. */
    private static void awaitLine(List<String> out, java.util.function.Predicate<String> p, String what, int count)
            throws InterruptedException {
        long end = System.nanoTime() + 10_000_000_000L;
        while (out.stream().filter(p).count() < count && System.nanoTime() < end) {
            Thread.sleep(10);
        }
        assertThat(out.stream().filter(p).count()).as("%s: %s", what, out).isGreaterThanOrEqualTo(count);
    }
}
