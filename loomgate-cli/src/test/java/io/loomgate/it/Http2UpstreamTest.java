package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.http2.Http2Settings;
import io.loomgate.testkit.ExternalTool;
import io.loomgate.testkit.FreePorts;
import io.loomgate.testkit.H2Origin;
import io.loomgate.testkit.RawClient;
import io.loomgate.testkit.RunningGateway;
import io.loomgate.testkit.TestPki;
import io.loomgate.upstream.UpstreamPool;
import java.io.ByteArrayInputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Upstream HTTP/2: {@code h2c://} origins and {@code https://} ones with {@code upstream.http2}, reached by HTTP/1.1
 * and HTTP/2 clients, with real sockets on both sides (the origin is the project's own HTTP/2 server, {@link
 * H2Origin}; the clients are the JDK's HttpClient, raw sockets and nghttp2's tools).
 */
class Http2UpstreamTest {

    private static String route(String uri, String... extra) {
        StringBuilder y = new StringBuilder("routes:\n  - id: main\n    uri: " + uri
                + "\n    predicates: [ \"Path=/**\" ]\n");
        for (String l : extra) {
            y.append("    ").append(l).append('\n');
        }
        return y.toString();
    }

    private static final String H2C_SERVER = """
            server:
              address: 127.0.0.1
              port: 0
              http2:
                enabled: true
            admin:
              port: 0
            """;

    private static UpstreamPool pool(RunningGateway gw) {
        return gw.gateway().upstreams().get("main").members().get(0).pool();
    }

    @Test
    void anHttp11ClientReachesAnH2cOrigin() throws Exception {
        try (H2Origin origin = H2Origin.h2c();
             RunningGateway gw = RunningGateway.start(route(origin.h2cUri()), Map.of())) {
            HttpResponse<String> r = gw.get("/hello");
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.body()).isEqualTo("hello");
            assertThat(origin.versions()).containsExactly("HTTP/2.0");
            HttpResponse<String> echo = gw.send(gw.request("/echo").POST(HttpRequest.BodyPublishers.ofString("ping")));
            assertThat(echo.body()).isEqualTo("ping");
            assertThat(echo.headers().firstValue("x-version")).hasValue("HTTP/2.0");
            // Host became :authority (the route preserves the client's Host by default)
            assertThat(echo.headers().firstValue("x-authority")).hasValue("127.0.0.1:" + gw.port());
            assertThat(origin.connections()).isEqualTo(1);
            assertThat(pool(gw).http2ConnectionCount()).isEqualTo(1);
        }
    }

    @Test
    void aChunkedUploadBecomesDataFramesAndTheAnswerComesBackChunked() throws Exception {
        try (H2Origin origin = H2Origin.h2c();
             RunningGateway gw = RunningGateway.start(route(origin.h2cUri()), Map.of());
             RawClient c = gw.raw()) {
            c.send("POST /echo HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n"
                    + "5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n");
            RawClient.Response r = c.read();
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.header("Transfer-Encoding")).isEqualTo("chunked");
            assertThat(r.bodyText()).isEqualTo("hello world");
            assertThat(r.header("x-version")).isEqualTo("HTTP/2.0");
        }
    }

    @Test
    void responseTrailersReachAnHttp11ClientInTheChunkedTrailerSection() throws Exception {
        try (H2Origin origin = H2Origin.h2c();
             RunningGateway gw = RunningGateway.start(route(origin.h2cUri()), Map.of());
             RawClient c = gw.raw()) {
            c.send("GET /trailers HTTP/1.1\r\nHost: a\r\n\r\n");
            RawClient.Response r = c.read();
            assertThat(r.bodyText()).isEqualTo("ok");
            assertThat(r.trailers()).extracting(t -> t[0].toLowerCase() + ": " + t[1])
                    .containsExactly("grpc-status: 0", "grpc-message: fine");
        }
    }

    @Test
    void responseTrailersReachAnHttp2ClientAsTrailingHeaders() throws Exception {
        Path nghttp = ExternalTool.require("nghttp", "apt-get install nghttp2-client");
        try (H2Origin origin = H2Origin.h2c();
             RunningGateway gw = RunningGateway.start(H2C_SERVER + route(origin.h2cUri()), Map.of())) {
            String out = run(List.of(nghttp.toString(), "-v", gw.url("/trailers")));
            // The trailers arrive in a HEADERS frame with END_STREAM after the DATA.
            int data = out.indexOf("recv DATA frame");
            int trailer = out.indexOf("grpc-status: 0");
            assertThat(data).as(out).isPositive();
            assertThat(trailer).as(out).isGreaterThan(data);
            assertThat(out.substring(trailer)).contains("grpc-message: fine");
            assertThat(out.substring(data)).contains("recv HEADERS frame", "END_STREAM");
        }
    }

    @Test
    void aHundredConcurrentStreamsShareOneUpstreamConnection() throws Exception {
        Path h2load = ExternalTool.require("h2load", "apt-get install nghttp2-client");
        try (H2Origin origin = H2Origin.h2c();
             RunningGateway gw = RunningGateway.start(H2C_SERVER + route(origin.h2cUri()), Map.of())) {
            String out = run(List.of(h2load.toString(), "-n", "100", "-c", "1", "-m", "100", gw.url("/slow/300")));
            assertThat(out).contains("100 succeeded, 0 failed", "status codes: 100 2xx");
            assertThat(origin.requests()).isEqualTo(100);
            assertThat(origin.maxInFlight()).as("streams overlapped at the origin").isGreaterThan(20);
            assertThat(origin.connections()).as("multiplexed onto one connection").isEqualTo(1);
        }
    }

    @Test
    void moreConnectionsOpenAtTheOriginsStreamLimitUpToTheCap() throws Exception {
        Path h2load = ExternalTool.require("h2load", "apt-get install nghttp2-client");
        Http2Settings ten = new Http2Settings(true, 10, 65_535, 100_000, 100, 50);
        try (H2Origin origin = H2Origin.h2c(ten);
             RunningGateway gw = RunningGateway.start(H2C_SERVER + "upstream:\n  http2-max-connections: 3\n"
                     + route(origin.h2cUri()), Map.of())) {
            String out = run(List.of(h2load.toString(), "-n", "100", "-c", "1", "-m", "100", gw.url("/slow/200")));
            assertThat(out).contains("100 succeeded, 0 failed");
            assertThat(origin.connections()).as("10 streams each, at most 3").isBetween(2, 3);
            assertThat(origin.maxInFlight()).isLessThanOrEqualTo(30);
        }
    }

    @Test
    void originGoAwayMidLoadMovesNewRequestsToANewConnection() throws Exception {
        // The origin sends GOAWAY after every 10 streams on a connection (its stream-id exhaustion defence).
        Http2Settings tenPerConnection = new Http2Settings(true, 100, 65_535, 10, 100, 50);
        try (H2Origin origin = H2Origin.h2c(tenPerConnection);
             RunningGateway gw = RunningGateway.start(route(origin.h2cUri()), Map.of())) {
            // Six clients, ten requests each: streams in flight when a GOAWAY comes are refused (above its last
            // stream id) and sent again on the next connection.
            List<CompletableFuture<List<Integer>>> workers = new ArrayList<>();
            for (int w = 0; w < 6; w++) {
                workers.add(CompletableFuture.supplyAsync(() -> {
                    List<Integer> statuses = new ArrayList<>();
                    for (int i = 0; i < 10; i++) {
                        try {
                            HttpResponse<String> r = gw.get("/slow/10");
                            statuses.add(r.statusCode());
                        } catch (Exception e) {
                            throw new IllegalStateException(e);
                        }
                    }
                    return statuses;
                }));
            }
            for (CompletableFuture<List<Integer>> f : workers) {
                assertThat(f.get(60, TimeUnit.SECONDS)).containsOnly(200);
            }
            assertThat(origin.connections()).as("a new connection after each GOAWAY").isGreaterThanOrEqualTo(6);
        }
    }

    @Test
    void aDeadOriginIsA502() throws Exception {
        int closedPort = FreePorts.refused();
        try (RunningGateway gw = RunningGateway.start(route("h2c://127.0.0.1:" + closedPort), Map.of())) {
            assertThat(gw.get("/x").statusCode()).isEqualTo(502);
        }
        H2Origin origin = H2Origin.h2c();
        try (RunningGateway gw = RunningGateway.start(route(origin.h2cUri()), Map.of())) {
            assertThat(gw.get("/warm").statusCode()).isEqualTo(200);
            CompletableFuture<HttpResponse<String>> hanging = CompletableFuture.supplyAsync(() -> {
                try {
                    return gw.get("/hang");
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (origin.requests() < 2) {
                assertThat(System.nanoTime()).isLessThan(end);
                Thread.onSpinWait();
            }
            origin.close(); // the origin dies with the stream in flight: its connection ends under it
            HttpResponse<String> r = hanging.get(30, TimeUnit.SECONDS);
            assertThat(r.statusCode()).isEqualTo(502);
            assertThat(gw.get("/after").statusCode()).isEqualTo(502);
        } finally {
            origin.close();
        }
    }

    @Test
    void aLargeBodyStreamsBothWaysThroughOneStream() throws Exception {
        try (H2Origin origin = H2Origin.h2c();
             RunningGateway gw = RunningGateway.start(route(origin.h2cUri()), Map.of())) {
            byte[] up = new byte[48 << 20];
            new Random(7).nextBytes(up);
            HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
            // Unknown length (chunked): sent by the upload thread as DATA under the origin's windows.
            HttpResponse<String> r = client.send(HttpRequest.newBuilder(URI.create(gw.url("/sink")))
                    .timeout(Duration.ofSeconds(120))
                    .POST(HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(up))).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.body()).isEqualTo(up.length + " "
                    + java.util.HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(up)));
            long n = 64L << 20;
            HttpResponse<java.io.InputStream> down = client.send(HttpRequest.newBuilder(
                    URI.create(gw.url("/bytes/" + n))).timeout(Duration.ofSeconds(120)).build(),
                    HttpResponse.BodyHandlers.ofInputStream());
            long got = 0;
            try (java.io.InputStream in = down.body()) {
                byte[] buf = new byte[64 * 1024];
                int k;
                while ((k = in.read(buf)) >= 0) {
                    got += k;
                    if (got < (8 << 20)) {
                        Thread.sleep(1); // a slow reader at first: flow control must hold the origin back
                    }
                }
            }
            assertThat(got).isEqualTo(n);
            assertThat(pool(gw).http2().maxBufferedPerStream())
                    .as("never more buffered than the stream window granted")
                    .isLessThanOrEqualTo(io.loomgate.http2.Http2ClientConnection.streamWindow());
        }
    }

    @Test
    void anHttpsOriginNegotiatesH2ByAlpn() throws Exception {
        TestPki pki = TestPki.create("h2 origin CA");
        TestPki.Issued cert = pki.issue("origin", "localhost", "localhost");
        try (H2Origin origin = H2Origin.tls(cert, List.of("h2", "http/1.1"));
             RunningGateway gw = RunningGateway.start(tlsUpstream(origin), Map.of("CA", pki.caCert().toString()))) {
            HttpResponse<String> r = gw.send(gw.request("/echo").POST(HttpRequest.BodyPublishers.ofString("tls")));
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.body()).isEqualTo("tls");
            assertThat(r.headers().firstValue("x-version")).hasValue("HTTP/2.0");
            assertThat(pool(gw).http2ConnectionCount()).isEqualTo(1);
        }
    }

    @Test
    void anHttpsOriginThatChoosesHttp11ByAlpnIsServedOverHttp11() throws Exception {
        TestPki pki = TestPki.create("h1 origin CA");
        TestPki.Issued cert = pki.issue("origin", "localhost", "localhost");
        try (H2Origin origin = H2Origin.tls(cert, List.of("http/1.1"));
             RunningGateway gw = RunningGateway.start(tlsUpstream(origin), Map.of("CA", pki.caCert().toString()))) {
            for (int i = 0; i < 3; i++) {
                HttpResponse<String> r = gw.send(gw.request("/echo").POST(HttpRequest.BodyPublishers.ofString("h1")));
                assertThat(r.statusCode()).isEqualTo(200);
                assertThat(r.body()).isEqualTo("h1");
                assertThat(r.headers().firstValue("x-version")).hasValue("HTTP/1.1");
                // The first request is served on the connection the HTTP/2 pool's dial made (adopted by the
                // HTTP/1.1 pool), the next ones reuse it: one TLS connection, one handshake, at the origin. Before,
                // that connection was closed and the HTTP/1.1 pool dialled and handshook again: two.
                assertThat(origin.connections()).as("TLS connections the origin accepted after request %d", i + 1)
                        .isEqualTo(1);
            }
            assertThat(origin.versions()).containsExactly("HTTP/1.1");
            assertThat(pool(gw).http2().http1Only()).isTrue();
            assertThat(pool(gw).connectCount()).as("dials counted").isEqualTo(1);
        }
    }

    private static String tlsUpstream(H2Origin origin) {
        // connect-timeout: the origin is in this JVM, and on a cold one (the class's first test) its own first
        // server handshake, which these tests are not about, counts in the gateway's dial budget beside the client's.
        return "upstream:\n  http2: true\n  connect-timeout: 10s\n"
                + "  ssl:\n    provider: ${TLS_PROVIDER}\n    trust-certificate: ${CA}\n"
                + route(origin.httpsUri());
    }

    private static String run(List<String> cmd) throws Exception {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(out).isZero();
        return out;
    }
}
