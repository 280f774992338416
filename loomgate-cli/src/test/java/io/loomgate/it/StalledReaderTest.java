package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.RawClient;
import io.loomgate.testkit.RunningGateway;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A client that asks for a large body and stops reading must not hold its upstream connection forever: after the
 * read timeout with no write progress, the gateway aborts the client connection and releases the origin's.
 */
class StalledReaderTest {

    @Test
    void aClientThatStopsReadingIsCutOffAndTheOriginConnectionFreed() throws Exception {
        CountDownLatch originCut = new CountDownLatch(1);
        try (ServerSocket origin = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            Thread.ofVirtual().start(() -> {
                try (Socket s = origin.accept()) {
                    InputStream in = s.getInputStream();
                    while (in.read() != '\n' || in.read() != '\r' || in.read() != '\n') {
                        Thread.onSpinWait(); // skip the request head
                    }
                    OutputStream out = s.getOutputStream();
                    out.write("HTTP/1.1 200 OK\r\nContent-Length: 1073741824\r\n\r\n"
                            .getBytes(StandardCharsets.US_ASCII));
                    byte[] chunk = new byte[64 * 1024];
                    while (true) {
                        out.write(chunk); // fails once the gateway gives up on the client and discards us
                    }
                } catch (IOException e) {
                    originCut.countDown();
                }
            });
            String yaml = "server:\n  address: 127.0.0.1\n  port: 0\n  read-timeout: 1s\nadmin:\n  port: 0\n"
                    + "routes:\n  - id: big\n    uri: http://127.0.0.1:" + origin.getLocalPort() + "\n"
                    + "    predicates: [ \"Path=/**\" ]\n";
            try (RunningGateway gw = RunningGateway.start(yaml, Map.of()); RawClient c = gw.raw()) {
                c.socket().setReceiveBufferSize(4096);
                c.send("GET /huge HTTP/1.1\r\nHost: h\r\n\r\n"); // and never read
                assertThat(originCut.await(20, TimeUnit.SECONDS)).isTrue();
            }
        }
    }
}
