package io.loomgate.http2;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.EcsSchema;
import io.loomgate.testkit.JarProcess;
import io.loomgate.testkit.RawClient;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SIGTERM to the packaged gateway with exchanges that outlast its drain's deadline, one of each shape: HTTP/1.1 GETs
 * and an HTTP/2 GET waiting for an origin that never answers, an HTTP/1.1 upload whose client stopped sending, a
 * WebSocket tunnel. Each must have its access-log line, as the drain's cut ({@code drain_cut}), before the process
 * exits; an HTTP/1.1 client that leaves between the signal and the deadline, as {@code client_aborted} (session 60: it
 * was the drain's too). Before session 59 the HTTP/1.1 GET had none: closing its client's socket did not end its wait for the origin,
 * the drain returned and the process exited under it. (The HTTP/2 GET went through DrainAfterCancel's 1 s, as long as
 * the drain's last wait: its line came or not by a few milliseconds.)
 */
class DrainCutLoggedIT {

    @Test
    void everyExchangeCutAtTheDeadlineIsLoggedBeforeTheProcessExits(@TempDir Path dir) throws Exception {
        Path yaml = dir.resolve("gateway.yaml");
        Files.writeString(yaml, H2cGatewayYaml.yaml().replace("  port: 0\n  http2:",
                "  port: 0\n  drain-timeout: 300ms\n  http2:") + "access-log:\n  format: json\n");
        try (SilentOrigin origin = new SilentOrigin();
             JarProcess gw = JarProcess.start(List.of("-Xmx128m"), List.of("serve", "--config", yaml.toString()),
                     Map.of("ORIGIN", "http://127.0.0.1:" + origin.port()))) {
            int port = gw.awaitListening(Duration.ofSeconds(20));
            try (RawClient get = new RawClient(port);
                 RawClient upload = new RawClient(port);
                 RawClient ws = new RawClient(port);
                 RawH2Client h2 = new RawH2Client(port);
                 RawClient leaving = new RawClient(port)) {
                get.send("GET /slow-h1 HTTP/1.1\r\nHost: h\r\n\r\n");
                leaving.send("GET /left-h1 HTTP/1.1\r\nHost: h\r\n\r\n");
                upload.send("POST /upload HTTP/1.1\r\nHost: h\r\nContent-Length: 1000000\r\n\r\n" + "x".repeat(1000));
                ws.send("GET /ws HTTP/1.1\r\nHost: h\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n"
                        + "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n");
                assertThat(ws.read().status()).isEqualTo(101);
                h2.get(1, "/slow-h2");
                origin.awaitHeads(5);
                gw.terminate();
                leaving.close(); // this client leaves before the deadline (session 60: it was logged drain_cut)
                assertThat(gw.awaitExit(Duration.ofSeconds(20))).isZero();
            }
            String out = gw.output();
            assertThat(out).contains("drain timeout: cutting 5 connection(s) still in the middle of a request (1 of them "
                    + "already left by their client)");
            // The status each client got: none (499, session 60: they were logged 503 and 400) but the tunnel's 101.
            Map<String, Integer> statuses = Map.of("/slow-h1", 499, "/upload", 499, "/ws", 101, "/slow-h2", 499);
            for (String path : List.of("/slow-h1", "/upload", "/ws", "/slow-h2")) {
                List<String> lines = out.lines().filter(l -> l.contains("\"url.path\":\"" + path + "\"")).toList();
                assertThat(lines).as("the access line of %s in:%n%s", path, out).hasSize(1);
                assertThat(lines.getFirst()).as(path).contains("\"loomgate.failure\":\"drain_cut\"")
                        .contains("\"http.response.status_code\":" + statuses.get(path) + ",");
                EcsSchema.assertValid(lines);
            }
            List<String> left = out.lines().filter(l -> l.contains("\"url.path\":\"/left-h1\"")).toList();
            assertThat(left).as("the access line of the client that left, in:%n%s", out).hasSize(1);
            assertThat(left.getFirst()).contains("\"loomgate.failure\":\"client_aborted\"")
                    .contains("\"http.response.status_code\":499,");
        }
    }

    /** An origin that reads request heads and answers only an upgrade (101, then nothing); the rest it holds. */
    private static final class SilentOrigin implements AutoCloseable {
        private final ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        private final Queue<Socket> sockets = new ConcurrentLinkedQueue<>();
        private final Queue<String> heads = new ConcurrentLinkedQueue<>();

        SilentOrigin() throws IOException {
            Thread.ofVirtual().start(this::accept);
        }

        int port() {
            return server.getLocalPort();
        }

        private void accept() {
            try {
                while (true) {
                    Socket s = server.accept();
                    sockets.add(s);
                    Thread.ofVirtual().start(() -> serve(s));
                }
            } catch (IOException e) {
                // closed: the test is over
            }
        }

        private void serve(Socket s) {
            try {
                InputStream in = s.getInputStream();
                StringBuilder head = new StringBuilder();
                while (head.indexOf("\r\n\r\n") < 0) {
                    int b = in.read();
                    if (b < 0) {
                        return;
                    }
                    head.append((char) b);
                }
                if (head.toString().startsWith("GET /ws ")) {
                    OutputStream out = s.getOutputStream();
                    out.write(("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                            + "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\r\n")
                            .getBytes(StandardCharsets.US_ASCII));
                    out.flush();
                }
                heads.add(head.toString());
                in.transferTo(OutputStream.nullOutputStream()); // a body, or nothing, until the gateway closes
            } catch (IOException e) {
                // the gateway closed the connection
            }
        }

        /** Polls (20 s at most) until {@code n} request heads arrived. */
        void awaitHeads(int n) {
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (heads.size() < n && System.nanoTime() < deadline) {
                LockSupport.parkNanos(10_000_000);
            }
            assertThat(heads).hasSize(n);
        }

        @Override
        public void close() throws IOException {
            server.close();
            for (Socket s : sockets) {
                s.close();
            }
        }
    }
}
