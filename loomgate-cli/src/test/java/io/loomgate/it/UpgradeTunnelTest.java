package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.RawClient;
import io.loomgate.testkit.RunningGateway;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** After a 101 the gateway is a byte pipe both ways until either side closes (WebSocket and any other upgrade). */
class UpgradeTunnelTest {

    @Test
    void upgradedConnectionsAreTunnelledBothWays() throws Exception {
        AtomicReference<String> originSaw = new AtomicReference<>();
        try (ServerSocket origin = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            Thread.ofVirtual().start(() -> {
                try (Socket s = origin.accept()) {
                    InputStream in = s.getInputStream();
                    StringBuilder head = new StringBuilder();
                    while (!head.toString().endsWith("\r\n\r\n")) {
                        head.append((char) in.read());
                    }
                    originSaw.set(head.toString());
                    OutputStream out = s.getOutputStream();
                    out.write(("HTTP/1.1 101 Switching Protocols\r\nUpgrade: echo\r\nConnection: Upgrade\r\n\r\n")
                            .getBytes(StandardCharsets.US_ASCII));
                    out.flush();
                    byte[] buf = new byte[64];
                    for (int n; (n = in.read(buf)) > 0; ) { // echo, upper-cased, until the client closes
                        out.write(new String(buf, 0, n, StandardCharsets.US_ASCII).toUpperCase()
                                .getBytes(StandardCharsets.US_ASCII));
                        out.flush();
                    }
                } catch (Exception e) {
                    // test over
                }
            });
            String yaml = "routes:\n  - id: ws\n    uri: http://127.0.0.1:" + origin.getLocalPort() + "\n"
                    + "    predicates: [ \"Path=/**\" ]\n    upgrades: [ echo ]\n";
            try (RunningGateway gw = RunningGateway.start(yaml, Map.of()); RawClient c = gw.raw()) {
                c.send("GET /chat HTTP/1.1\r\nHost: h\r\nConnection: Upgrade\r\nUpgrade: echo\r\n\r\n");
                RawClient.Response r = c.read();
                assertThat(r.status()).isEqualTo(101);
                assertThat(r.header("Upgrade")).isEqualTo("echo");
                assertThat(originSaw.get()).contains("Upgrade: echo").contains("Connection: Upgrade");
                c.send("hello");
                byte[] back = c.socket().getInputStream().readNBytes(5);
                assertThat(new String(back, StandardCharsets.US_ASCII)).isEqualTo("HELLO");
                c.send("again");
                assertThat(new String(c.socket().getInputStream().readNBytes(5), StandardCharsets.US_ASCII))
                        .isEqualTo("AGAIN");
            }
        }
    }
}
