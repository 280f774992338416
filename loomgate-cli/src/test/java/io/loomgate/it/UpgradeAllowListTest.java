package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.RawClient;
import io.loomgate.testkit.RunningGateway;
import io.loomgate.testkit.TestOrigin;
import io.loomgate.testkit.TestOrigin.Recorded;
import io.loomgate.threads.ConnectionExecutors;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * After a 101 the gateway only pipes bytes, so routes and filters no longer see what passes: a tunnelled h2c
 * connection could reach any path with any method. Only the upgrades a route allows are forwarded (WebSocket by
 * default, others with the route's {@code upgrades} key); {@code h2c} never is (RFC 9113 §3.1 deprecates it), and
 * any other Upgrade is removed, so the origin answers the request as plain HTTP/1.1.
 */
class UpgradeAllowListTest {

    @Test
    void anH2cUpgradeIsRemovedAndTheRequestServedAsHttp11() throws Exception {
        try (TestOrigin origin = new TestOrigin(); RunningGateway gw = RunningGateway.to(origin);
             RawClient c = gw.raw()) {
            c.send("GET /admin HTTP/1.1\r\nHost: h\r\nConnection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\n"
                    + "HTTP2-Settings: AAMAAABkAAQAAP__\r\n\r\n");
            assertThat(c.read().status()).isEqualTo(200);
            Recorded r = origin.takeRequest();
            assertThat(r.header("Upgrade")).isNull();
            assertThat(r.header("HTTP2-Settings")).isNull();
            assertThat(r.header("Connection")).isNull();
        }
    }

    @Test
    void webSocketUpgradesAreForwardedByDefault() throws Exception {
        try (TestOrigin origin = new TestOrigin(); RunningGateway gw = RunningGateway.to(origin);
             RawClient c = gw.raw()) {
            c.send("GET /chat HTTP/1.1\r\nHost: h\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n"
                    + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n");
            assertThat(c.read().status()).isEqualTo(200); // this origin does not switch
            Recorded r = origin.takeRequest();
            assertThat(r.header("Upgrade")).isEqualTo("websocket");
            assertThat(r.header("Connection")).isEqualTo("Upgrade");
        }
    }

    @Test
    void anUpgradeTheRouteDoesNotListIsRemoved() throws Exception {
        try (TestOrigin origin = new TestOrigin(); RunningGateway gw = RunningGateway.to(origin);
             RawClient c = gw.raw()) {
            c.send("GET / HTTP/1.1\r\nHost: h\r\nConnection: Upgrade\r\nUpgrade: echo\r\n\r\n");
            assertThat(c.read().status()).isEqualTo(200);
            assertThat(origin.takeRequest().header("Upgrade")).isNull();
        }
    }

    @Test
    void aRouteKeyAllowsOtherUpgrades() throws Exception {
        try (TestOrigin origin = new TestOrigin(); RunningGateway gw = RunningGateway.to(origin,
                "upgrades: [ echo ]"); RawClient c = gw.raw()) {
            c.send("GET / HTTP/1.1\r\nHost: h\r\nConnection: Upgrade\r\nUpgrade: Echo\r\n\r\n");
            assertThat(c.read().status()).isEqualTo(200);
            assertThat(origin.takeRequest().header("Upgrade")).isEqualTo("Echo");
        }
    }

    @Test
    void anOriginSwitchingToAProtocolNotAskedForIsA502() throws Exception {
        try (ServerSocket origin = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            ConnectionExecutors.startVirtual("switching-origin", () -> {
                try (Socket s = origin.accept()) {
                    InputStream in = s.getInputStream();
                    StringBuilder head = new StringBuilder();
                    while (!head.toString().endsWith("\r\n\r\n")) {
                        head.append((char) in.read());
                    }
                    s.getOutputStream().write(("HTTP/1.1 101 Switching Protocols\r\nUpgrade: h2c\r\n"
                            + "Connection: Upgrade\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
                    in.read();
                } catch (Exception e) {
                    // test over
                }
            });
            try (RunningGateway gw = RunningGateway.start("routes:\n  - id: ws\n    uri: ${ORIGIN}\n",
                    Map.of("ORIGIN", "http://127.0.0.1:" + origin.getLocalPort())); RawClient c = gw.raw()) {
                c.send("GET /chat HTTP/1.1\r\nHost: h\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n");
                assertThat(c.read().status()).isEqualTo(502);
            }
        }
    }
}
