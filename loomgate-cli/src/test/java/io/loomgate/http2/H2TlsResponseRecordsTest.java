package io.loomgate.http2;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.RunningGateway;
import io.loomgate.testkit.TestOrigin;
import io.loomgate.testkit.TestPki;
import io.loomgate.testkit.TlsRecordRelay;
import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * W9's exchange on the wire: a small proxied response over h2 by ALPN leaves the gateway as one TLS record holding its
 * HEADERS and one DATA frame that ends the stream, and nothing else is sent for the request (no WINDOW_UPDATE for a
 * request without a body, no empty END_STREAM frame of its own). A record is a wrap, a system call and a packet each.
 * Counted by a relay that reads the records' headers, and by a raw h2 client that reads every frame. Runs once per
 * provider (the build's conscrypt pass).
 */
class H2TlsResponseRecordsTest {
    private static TestOrigin origin;
    private static RunningGateway gateway;
    private static SSLContext client;

    @BeforeAll
    static void start() throws Exception {
        TestPki pki = TestPki.create("H2 records CA");
        TestPki.Issued server = pki.issue("server", "gateway.test", "localhost");
        client = pki.clientContext(null);
        origin = new TestOrigin();
        origin.fallback(r -> TestOrigin.Reply.ok("hello from the origin " + r.target()));
        gateway = RunningGateway.start("""
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
                routes:
                  - { id: main, uri: "${ORIGIN}", predicates: [ "Path=/**" ] }
                """, Map.of("ORIGIN", origin.uri(), "CERT", server.cert().toString(),
                "KEY", server.key().toString()));
    }

    @AfterAll
    static void stop() throws IOException {
        gateway.close();
        origin.close();
    }

    @Test
    void eachSmallProxiedResponseIsOneRecordOfHeadersAndAnEndingData() throws Exception {
        try (TlsRecordRelay relay = new TlsRecordRelay(gateway.port());
             RawH2Client c = new RawH2Client(h2To(relay.port()))) {
            // The first exchange carries what the connection's start left (SETTINGS, their ACK, the connection's
            // window, TLS 1.3 session tickets): counted from after it.
            get(c, 1, "/first");
            int before = relay.recordsToClient();
            int requests = 20;
            for (int i = 0; i < requests; i++) {
                int stream = 3 + 2 * i;
                List<RawH2Client.Frame> frames = get(c, stream, "/hello/" + i);
                assertThat(frames).as("frames for stream %d", stream)
                        .extracting(RawH2Client.Frame::type).containsExactly(Frames.HEADERS, Frames.DATA);
                assertThat(c.fields(frames.get(0))).containsEntry(":status", "200");
                assertThat(new String(frames.get(1).payload())).isEqualTo("hello from the origin /hello/" + i);
            }
            assertThat(relay.recordsToClient() - before)
                    .as("TLS records from the gateway for %d h2 responses (%s)", requests,
                            RunningGateway.tlsProvider())
                    .isEqualTo(requests);
        }
    }

    /** A GET on {@code stream}; every frame the gateway sent until the stream ended, which must be within 10 s. */
    private static List<RawH2Client.Frame> get(RawH2Client c, int stream, String path) throws IOException {
        c.headers(stream, RawH2Client.block(":method", "GET", ":scheme", "https", ":path", path,
                ":authority", "localhost"), true);
        List<RawH2Client.Frame> frames = new ArrayList<>();
        while (true) {
            RawH2Client.Frame f = c.readWithin(10_000);
            assertThat(f).as("a frame for stream %d", stream).isNotNull();
            if (stream == 1 && f.stream() == 0) {
                if (f.type() == Frames.SETTINGS && (f.flags() & Frames.FLAG_ACK) == 0) {
                    c.frame(Frames.SETTINGS, Frames.FLAG_ACK, 0, new byte[0]);
                }
                continue; // the connection's start
            }
            frames.add(f);
            if (f.stream() == stream && f.endStream()) {
                return frames;
            }
        }
    }

    /** A TLS client over a plain socket to {@code port}, offering h2 only by ALPN, handshake done. */
    private static SSLSocket h2To(int port) throws IOException {
        Socket plain = new Socket(InetAddress.getLoopbackAddress(), port);
        plain.setTcpNoDelay(true);
        SSLSocket s = (SSLSocket) client.getSocketFactory().createSocket(plain, "localhost", port, true);
        SSLParameters p = s.getSSLParameters();
        p.setServerNames(List.of(new SNIHostName("localhost")));
        p.setApplicationProtocols(new String[] {"h2"});
        s.setSSLParameters(p);
        s.startHandshake();
        assertThat(s.getApplicationProtocol()).isEqualTo("h2");
        return s;
    }
}
