package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.H2Origin;
import io.loomgate.testkit.RawClient;
import io.loomgate.testkit.RunningGateway;
import io.loomgate.testkit.TestPki;
import io.loomgate.threads.ConnectionExecutors;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Full duplex through the gateway: an origin that streams the request body back as it reads it ({@code /echo}), an
 * 8 MiB body, and a client that reads the echo while it is still sending. RFC 9112 lets an origin answer before the
 * request ends; the gateway relays both directions at once, for every kind of client connection (HTTP/1.1 plain and
 * TLS, h2c, h2) and every kind of origin connection (http, https, h2c, h2 over TLS). Issue 34: the gateway sent the
 * whole body before it read the answer, so once the socket buffers filled both sides waited on each other until the
 * origin's read timed out.
 */
class FullDuplexEchoTest {
    private static final int LENGTH = 8 * 1024 * 1024;
    private static TestPki pki;
    private static H2Origin plainOrigin;
    private static H2Origin tlsH1Origin;
    private static H2Origin tlsH2Origin;
    private static RunningGateway plain;
    private static RunningGateway tls;
    private static byte[] body;
    private static Path bodyFile;
    private static String expected;
    private static String plainYaml;
    private static Map<String, String> vars;

    @BeforeAll
    static void start() throws Exception {
        TestPki.requireTool("curl", "--version");
        pki = TestPki.create("duplex CA");
        TestPki.Issued edge = pki.issue("edge", "localhost", "localhost");
        TestPki.Issued originCert = pki.issue("origin", "localhost", "localhost");
        plainOrigin = H2Origin.h2c(); // HTTP/1.1 and h2c on one port
        tlsH1Origin = H2Origin.tls(originCert, List.of("http/1.1"));
        tlsH2Origin = H2Origin.tls(originCert, List.of("h2", "http/1.1"));
        body = new byte[LENGTH];
        new Random(34).nextBytes(body);
        expected = sha256(body);
        bodyFile = Files.write(pki.dir().resolve("duplex.bin"), body);
        String routes = """
                upstream:
                  http2: true
                  ssl:
                    trust-certificate: ${CA}
                routes:
                  - id: http
                    uri: http://127.0.0.1:${PLAIN}
                    predicates: [ "Path=/http/**" ]
                    filters: [ "StripPrefix=1" ]
                  - id: h2c
                    uri: h2c://127.0.0.1:${PLAIN}
                    predicates: [ "Path=/h2c/**" ]
                    filters: [ "StripPrefix=1" ]
                  - id: https
                    uri: https://localhost:${TLS_H1}
                    predicates: [ "Path=/https/**" ]
                    filters: [ "StripPrefix=1" ]
                  - id: h2
                    uri: https://localhost:${TLS_H2}
                    predicates: [ "Path=/h2/**" ]
                    filters: [ "StripPrefix=1" ]
                """;
        vars = Map.of("PLAIN", Integer.toString(plainOrigin.port()),
                "TLS_H1", Integer.toString(tlsH1Origin.port()), "TLS_H2", Integer.toString(tlsH2Origin.port()),
                "CA", pki.caCert().toString(), "CERT", edge.cert().toString(), "KEY", edge.key().toString());
        plainYaml = """
                server:
                  address: 127.0.0.1
                  port: 0
                  http2:
                    enabled: true
                admin:
                  port: 0
                """ + routes;
        plain = RunningGateway.start(plainYaml, vars);
        tls = RunningGateway.start("""
                server:
                  address: 127.0.0.1
                  port: 0
                  http2:
                    enabled: true
                  ssl:
                    provider: ${TLS_PROVIDER}
                    certificate: ${CERT}
                    certificate-private-key: ${KEY}
                admin:
                  port: 0
                """ + routes, vars);
    }

    @AfterAll
    static void stop() {
        for (AutoCloseable c : new AutoCloseable[] {plain, tls, plainOrigin, tlsH1Origin, tlsH2Origin}) {
            try {
                if (c != null) {
                    c.close();
                }
            } catch (Exception e) {
                // the next one still closes
            }
        }
    }

    static Stream<Arguments> combinations() {
        List<Arguments> all = new ArrayList<>();
        for (String downstream : List.of("h1", "h1-tls", "h2c", "h2")) {
            for (String upstream : List.of("http", "h2c", "https", "h2")) {
                all.add(Arguments.of(downstream, upstream));
            }
        }
        return all.stream();
    }

    @ParameterizedTest(name = "{0} client, {1} origin")
    @MethodSource("combinations")
    void anEightMegabyteEchoFlowsBothWaysAtOnce(String downstream, String upstream) throws Exception {
        long start = System.nanoTime();
        String path = "/" + upstream + "/echo";
        String got = switch (downstream) {
            case "h1" -> http11(new Socket(InetAddress.getLoopbackAddress(), plain.port()), path);
            case "h1-tls" -> http11(tlsSocket(), path);
            case "h2c" -> curl(List.of("--http2-prior-knowledge", "http://127.0.0.1:" + plain.port() + path));
            default -> curl(List.of("--http2", "--cacert", pki.caCert().toString(),
                    "https://localhost:" + tls.port() + path));
        };
        System.out.printf("FullDuplexEchoTest: %s client, %s origin: 8 MiB echoed in %d ms%n", downstream, upstream,
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
        assertThat(got).as("SHA-256 of the echo").isEqualTo(expected);
    }

    /**
     * A client that resets its connection halfway through its body while the echo flows: the relay beside fails on
     * the client's side, stops the origin, and the exchange is reported once, as the client's abort (not the origin's
     * failure that the stop causes), with the request bytes the relay sent.
     */
    @ParameterizedTest(name = "{0} origin")
    @org.junit.jupiter.params.provider.ValueSource(strings = {"http", "h2c", "https", "h2"})
    void aClientThatResetsMidBodyIsReportedAsAborted(String upstream) throws Exception {
        java.util.concurrent.BlockingQueue<io.loomgate.proxy.ExchangeView> ended =
                new java.util.concurrent.LinkedBlockingQueue<>();
        io.loomgate.proxy.ExchangeListener record = new io.loomgate.proxy.ExchangeListener() {
            @Override
            public void exchangeEnd(io.loomgate.proxy.ExchangeView x) {
                ended.add(x);
            }

            @Override
            public void exchangeFailed(io.loomgate.proxy.ExchangeView x) {
                ended.add(x);
            }
        };
        try (RunningGateway gw = RunningGateway.start(plainYaml, vars, new io.loomgate.cli.Gateway.Observers(record,
                io.loomgate.upstream.PoolListener.NOOP, io.loomgate.server.ConnectionListener.NOOP));
             Socket socket = new Socket(InetAddress.getLoopbackAddress(), gw.port())) {
            socket.setSoTimeout(30_000);
            OutputStream out = socket.getOutputStream();
            out.write(("POST /" + upstream + "/echo HTTP/1.1\r\nHost: localhost\r\nContent-Length: " + LENGTH
                    + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            out.write(body, 0, LENGTH / 8);
            out.flush();
            byte[] echoed = new byte[64 * 1024];
            int got = 0;
            while (got < echoed.length) { // the head and the first of the echo: both directions are flowing
                int n = socket.getInputStream().read(echoed, got, echoed.length - got);
                assertThat(n).as("echo bytes").isPositive();
                got += n;
            }
            socket.setSoLinger(true, 0);
            socket.close(); // a reset, mid-body
            io.loomgate.proxy.ExchangeView x = ended.poll(30, TimeUnit.SECONDS);
            assertThat(x).as("the exchange's end was reported").isNotNull();
            assertThat(x.failure()).as("failure").isNotNull();
            assertThat(x.failure().kind()).as(x.failure().getMessage())
                    .isEqualTo(io.loomgate.proxy.ProxyFailure.Kind.CLIENT_ABORTED);
            assertThat(x.bytesIn()).isPositive().isLessThan(LENGTH);
            assertThat(ended.poll(1, TimeUnit.SECONDS)).as("reported once").isNull();
        }
    }

    /**
     * The request over HTTP/1.1 from a thread of its own, the echo read on this one as it comes (the reader's socket
     * timeout catches a stall); the SHA-256 of the echoed body.
     */
    private static String http11(Socket socket, String path) throws Exception {
        try (RawClient c = new RawClient(socket)) {
            socket.setSoTimeout(30_000);
            AtomicReference<IOException> sendFailure = new AtomicReference<>();
            Thread sender = ConnectionExecutors.startVirtual("duplex-sender", () -> {
                try {
                    OutputStream out = socket.getOutputStream();
                    out.write(("POST " + path + " HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/octet-stream"
                            + "\r\nContent-Length: " + LENGTH + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
                    for (int off = 0; off < LENGTH; off += 64 * 1024) {
                        out.write(body, off, Math.min(64 * 1024, LENGTH - off));
                    }
                    out.flush();
                } catch (IOException e) {
                    sendFailure.set(e);
                }
            });
            RawClient.Response r = c.read("POST");
            assertThat(sender.join(java.time.Duration.ofSeconds(30))).as("the sender finished").isTrue();
            assertThat(sendFailure.get()).as("send failure").isNull();
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.complete()).as("the echo came whole").isTrue();
            assertThat(r.body().length).isEqualTo(LENGTH);
            return sha256(r.body());
        }
    }

    /** A TLS socket to the gateway offering HTTP/1.1 only (ALPN), handshake done. */
    private static Socket tlsSocket() throws IOException {
        SSLSocket s = (SSLSocket) pki.clientContext(null).getSocketFactory()
                .createSocket(InetAddress.getLoopbackAddress(), tls.port());
        SSLParameters p = s.getSSLParameters();
        p.setServerNames(List.of(new SNIHostName("localhost")));
        p.setApplicationProtocols(new String[] {"http/1.1"});
        s.setSSLParameters(p);
        s.setSoTimeout(30_000);
        s.startHandshake();
        return s;
    }

    /** curl's upload (HTTP/2: it reads the response while it sends), the SHA-256 of what it received. */
    private static String curl(List<String> args) throws Exception {
        Path out = Files.createTempFile(pki.dir(), "echo", ".bin");
        List<String> command = new ArrayList<>(List.of("curl", "-sS", "--max-time", "30", "--fail",
                "-H", "Content-Type: application/octet-stream", "--data-binary", "@" + bodyFile, "-o", out.toString()));
        command.addAll(args);
        TestPki.run(command);
        byte[] echoed = Files.readAllBytes(out);
        Files.delete(out);
        assertThat(echoed.length).isEqualTo(LENGTH);
        return sha256(echoed);
    }

    private static String sha256(byte[] b) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b));
    }
}
