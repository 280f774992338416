package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.RawClient;
import io.loomgate.testkit.RunningGateway;
import io.loomgate.testkit.TestOrigin;
import io.loomgate.testkit.TestPki;
import io.loomgate.testkit.TlsRecordRelay;
import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
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
 * A proxied response over TLS leaves the gateway as one TLS record when it fits one: the response head and a small
 * body are written to the client together, not a record per write (W5, keep-alive {@code /hello}: a record is a
 * wrap, a system call and a packet each). The TLS records are counted on the wire by a relay between the client and
 * the gateway that reads their 5-byte headers (RFC 8446 §5.1). Runs once per provider (the build's conscrypt pass).
 */
class TlsResponseRecordsTest {
    private static TestPki pki;
    private static TestOrigin origin;
    private static RunningGateway gateway;
    private static SSLContext client;

    @BeforeAll
    static void start() throws Exception {
        pki = TestPki.create("Records CA");
        TestPki.Issued server = pki.issue("server", "gateway.test", "localhost");
        client = pki.clientContext(null);
        origin = new TestOrigin();
        origin.fallback(r -> TestOrigin.Reply.ok("hello from the origin " + r.target()));
        gateway = RunningGateway.start("""
                server:
                  address: 127.0.0.1
                  port: 0
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
    void eachSmallProxiedResponseIsOneTlsRecord() throws Exception {
        try (TlsRecordRelay relay = new TlsRecordRelay(gateway.port());
             RawClient c = new RawClient(tlsTo(relay.port()))) {
            // The first exchange may carry what the handshake left (TLS 1.3 session tickets): counted from after it.
            assertThat(c.get("/first").status()).isEqualTo(200);
            int before = relay.recordsToClient();
            int requests = 20;
            for (int i = 0; i < requests; i++) {
                RawClient.Response r = c.get("/hello/" + i);
                assertThat(r.status()).isEqualTo(200);
                assertThat(r.bodyText()).isEqualTo("hello from the origin /hello/" + i);
            }
            assertThat(relay.recordsToClient() - before)
                    .as("TLS records from the gateway for %d keep-alive responses (%s)", requests,
                            RunningGateway.tlsProvider())
                    .isEqualTo(requests);
        }
    }

    /** A TLS client over a plain socket to {@code port}, HTTP/1.1 only (no ALPN), handshake done. */
    private static SSLSocket tlsTo(int port) throws IOException {
        Socket plain = new Socket(InetAddress.getLoopbackAddress(), port);
        SSLSocket s = (SSLSocket) client.getSocketFactory().createSocket(plain, "localhost", port, true);
        SSLParameters p = s.getSSLParameters();
        p.setServerNames(List.of(new SNIHostName("localhost")));
        s.setSSLParameters(p);
        s.setSoTimeout(10_000);
        s.startHandshake();
        return s;
    }
}
