package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.ExternalTool;
import io.loomgate.testkit.FreePorts;
import io.loomgate.testkit.RunningGateway;
import io.loomgate.testkit.TestPki;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Upstream HTTP/2 against a third-party server: nghttp2's {@code nghttpd} (Debian's nghttp2-server, installed by
 * .ci/run), as h2c with prior knowledge and as h2 over TLS by ALPN. It speaks only HTTP/2, so every answer proves the
 * gateway's client side interoperates.
 */
class NghttpdOriginTest {
    @TempDir
    Path docroot;

    /**
     * A running nghttpd on a free port; killed on close. It takes its port on the command line, so the port is probed
     * first; one lost to another socket before nghttpd bound it ("Address already in use") is started again on
     * another port ({@link FreePorts}).
     */
    private record Nghttpd(Process process, int port) implements AutoCloseable {
        static Nghttpd start(Path docroot, String... extra) throws Exception {
            Path bin = ExternalTool.require("nghttpd", "apt-get install nghttp2-server");
            return FreePorts.start(port -> start(bin, docroot, port, extra));
        }

        private static Nghttpd start(Path bin, Path docroot, int port, String... extra) throws Exception {
            List<String> cmd = new ArrayList<>(List.of(bin.toString(), "-d", docroot.toString(), "--echo-upload",
                    "--trailer", "x-origin-trailer: nghttpd"));
            List<String> rest = new ArrayList<>(List.of(extra));
            boolean tls = !rest.isEmpty() && !rest.get(0).equals("--no-tls");
            if (!tls) {
                cmd.addAll(rest);
                cmd.add(Integer.toString(port));
            } else {
                cmd.add(Integer.toString(port));
                cmd.addAll(rest); // key, cert
            }
            Path log = Files.createTempFile("nghttpd", ".log"); // its start errors only: no -v
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
            try {
                long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                while (true) {
                    try (Socket probe = new Socket()) {
                        probe.connect(new InetSocketAddress("127.0.0.1", port), 500);
                        return new Nghttpd(p, port);
                    } catch (IOException notYet) {
                        if (!p.isAlive() || System.nanoTime() - end > 0) {
                            String why = p.isAlive() ? "nghttpd not listening within 20 s: " : "nghttpd exited: ";
                            p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                            throw new IllegalStateException(why + cmd + "\n" + Files.readString(log));
                        }
                        Thread.onSpinWait();
                    }
                }
            } finally {
                Files.deleteIfExists(log);
            }
        }

        @Override
        public void close() throws Exception {
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }

    private static String route(String uri) {
        return "routes:\n  - id: main\n    uri: " + uri + "\n    predicates: [ \"Path=/**\" ]\n";
    }

    @Test
    void h2cToNghttpdServesFilesUploadsAndTrailers() throws Exception {
        Files.writeString(docroot.resolve("hello.txt"), "hello from nghttpd\n");
        byte[] big = new byte[24 << 20];
        new Random(3).nextBytes(big);
        Files.write(docroot.resolve("big.bin"), big);
        try (Nghttpd origin = Nghttpd.start(docroot, "--no-tls");
             RunningGateway gw = RunningGateway.start(route("h2c://127.0.0.1:" + origin.port()), Map.of())) {
            HttpResponse<String> hello = gw.get("/hello.txt");
            assertThat(hello.statusCode()).isEqualTo(200);
            assertThat(hello.body()).isEqualTo("hello from nghttpd\n");

            HttpClient client = HttpClient.newHttpClient();
            HttpResponse<byte[]> r = client.send(HttpRequest.newBuilder(URI.create(gw.url("/big.bin")))
                    .version(HttpClient.Version.HTTP_1_1).timeout(Duration.ofSeconds(60)).build(),
                    HttpResponse.BodyHandlers.ofByteArray());
            assertThat(MessageDigest.getInstance("SHA-256").digest(r.body()))
                    .isEqualTo(MessageDigest.getInstance("SHA-256").digest(big));

            HttpResponse<String> echo = gw.send(gw.request("/hello.txt").version(HttpClient.Version.HTTP_1_1)
                    .POST(HttpRequest.BodyPublishers.ofString("uploaded")));
            assertThat(echo.body()).isEqualTo("uploaded");

        }
        // Its trailers come after a content-length body: an HTTP/1.1 client cannot get them with a fixed length, an
        // HTTP/2 client gets them as trailing HEADERS.
        Path nghttp = ExternalTool.require("nghttp", "apt-get install nghttp2-client");
        try (Nghttpd origin = Nghttpd.start(docroot, "--no-tls");
             RunningGateway gw = RunningGateway.start("server:\n  address: 127.0.0.1\n  port: 0\n  http2:\n"
                     + "    enabled: true\nadmin:\n  port: 0\n" + route("h2c://127.0.0.1:" + origin.port()),
                     Map.of())) {
            Process p = new ProcessBuilder(nghttp.toString(), "-v", gw.url("/hello.txt")).redirectErrorStream(true)
                    .start();
            String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
            assertThat(out).contains("hello from nghttpd");
            assertThat(out.indexOf("x-origin-trailer: nghttpd")).as(out).isGreaterThan(out.indexOf("recv DATA frame"));
        }
    }

    @Test
    void h2OverTlsToNghttpdByAlpn() throws Exception {
        Files.writeString(docroot.resolve("tls.txt"), "over tls\n");
        TestPki pki = TestPki.create("nghttpd CA");
        TestPki.Issued cert = pki.issue("nghttpd", "localhost", "localhost");
        try (Nghttpd origin = Nghttpd.start(docroot, cert.key().toString(), cert.cert().toString());
             RunningGateway gw = RunningGateway.start("upstream:\n  http2: true\n  ssl:\n    trust-certificate: ${CA}\n"
                     + route("https://localhost:" + origin.port()), Map.of("CA", pki.caCert().toString()))) {
            HttpResponse<String> r = gw.get("/tls.txt");
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.body()).isEqualTo("over tls\n");
            assertThat(gw.gateway().upstreams().get("main").members().get(0).pool().http2ConnectionCount())
                    .isEqualTo(1);
        }
    }
}
