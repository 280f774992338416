package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.RawClient;
import io.loomgate.testkit.RunningGateway;
import io.loomgate.testkit.TestOrigin;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * RequestSize: a declared length over the limit is answered 413 before the body is read; a chunked body over it is
 * cut off, the client connection closed, and the origin gets no last chunk (a cut body never looks complete).
 */
class RequestSizeTest {
    private static final String ROUTE = "filters: [ \"RequestSize=1KB\" ]";

    private static String chunked(int total) {
        StringBuilder b = new StringBuilder();
        for (int sent = 0; sent < total; sent += 500) {
            int n = Math.min(500, total - sent);
            b.append(Integer.toHexString(n)).append("\r\n").append("x".repeat(n)).append("\r\n");
        }
        return b.append("0\r\n\r\n").toString();
    }

    @Test
    void aContentLengthOverTheLimitIs413BeforeTheBodyIsRead() throws Exception {
        try (TestOrigin origin = new TestOrigin(); RunningGateway gw = RunningGateway.to(origin, ROUTE);
             RawClient c = gw.raw()) {
            // Expect: 100-continue: the client holds its body back, and the gateway never asks for it.
            RawClient.Response r = c.send("POST /upload HTTP/1.1\r\nHost: gw\r\nContent-Length: 2048\r\n"
                    + "Expect: 100-continue\r\n\r\n").read();
            assertThat(r.status()).isEqualTo(413);
            assertThat(r.header("errorMessage")).isEqualTo("Request size is larger than permissible limit. "
                    + "Request size is 2.0 KB where permissible limit is 1.0 KB");
            assertThat(r.header("Connection")).isEqualTo("close");
            assertThat(c.isClosedByPeer()).isTrue();
        }
        try (TestOrigin origin = new TestOrigin(); RunningGateway gw = RunningGateway.to(origin, ROUTE);
             RawClient c = gw.raw()) {
            RawClient.Response r = c.send("POST /upload HTTP/1.1\r\nHost: gw\r\nContent-Length: 1025\r\n\r\n"
                    + "y".repeat(1025)).read();
            assertThat(r.status()).isEqualTo(413);
            assertThat(origin.requestCount()).isZero();
            RawClient.Response fits = c.send("POST /upload HTTP/1.1\r\nHost: gw\r\nContent-Length: 1024\r\n\r\n"
                    + "z".repeat(1024)).read();
            assertThat(fits.status()).isEqualTo(200);
            assertThat(origin.takeRequest().body()).hasSize(1024);
        }
    }

    @Test
    void aChunkedBodyWithinTheLimitPassesWhole() throws Exception {
        try (TestOrigin origin = new TestOrigin(); RunningGateway gw = RunningGateway.to(origin, ROUTE);
             RawClient c = gw.raw()) {
            RawClient.Response r = c.send("POST /upload HTTP/1.1\r\nHost: gw\r\nTransfer-Encoding: chunked\r\n\r\n"
                    + chunked(1024)).read();
            assertThat(r.status()).isEqualTo(200);
            assertThat(origin.takeRequest().body()).hasSize(1024);
        }
    }

    @Test
    void aChunkedBodyOverTheLimitClosesTheConnectionAndTheOriginNeverGetsItsEnd() throws Exception {
        try (ServerSocket originSocket = new ServerSocket()) {
            originSocket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            CompletableFuture<String> received = CompletableFuture.supplyAsync(() -> receiveUntilClosed(originSocket));
            try (RunningGateway gw = RunningGateway.start("routes:\n  - id: up\n    uri: http://127.0.0.1:"
                    + originSocket.getLocalPort() + "\n    predicates: [ \"Path=/**\" ]\n    " + ROUTE + "\n", Map.of());
                 RawClient c = gw.raw()) {
                c.send("POST /upload HTTP/1.1\r\nHost: gw\r\nTransfer-Encoding: chunked\r\n\r\n" + chunked(3000));
                try {
                    RawClient.Response r = c.read();
                    assertThat(r.status()).isEqualTo(413);
                    assertThat(r.header("Connection")).isEqualTo("close");
                } catch (IOException resetBeforeTheAnswerWasRead) {
                    // the close may reach the client first; the connection ending is what the filter promises
                }
                assertThat(c.isClosedByPeer()).isTrue();
            }
            String atOrigin = received.get(20, TimeUnit.SECONDS);
            assertThat(atOrigin).startsWith("POST /upload HTTP/1.1\r\n").contains("Transfer-Encoding: chunked");
            assertThat(atOrigin).contains("1f4\r\n" + "x".repeat(500)); // what was under the limit went on
            assertThat(atOrigin).doesNotContain("\r\n0\r\n\r\n"); // but never the last chunk
            int bodyBytes = atOrigin.length() - atOrigin.replace("x", "").length();
            assertThat(bodyBytes).isLessThanOrEqualTo(1024);
        }
    }

    /** Everything one connection sends until the gateway closes it. */
    private static String receiveUntilClosed(ServerSocket server) {
        try (Socket s = server.accept()) {
            s.setSoTimeout(15_000);
            InputStream in = s.getInputStream();
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            byte[] buf = new byte[4096];
            int n;
            while ((n = in.read(buf)) >= 0) {
                out.write(buf, 0, n);
            }
            return out.toString(StandardCharsets.ISO_8859_1);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
