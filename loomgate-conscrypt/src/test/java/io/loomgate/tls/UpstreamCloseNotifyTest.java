package io.loomgate.tls;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.TestPki;
import io.loomgate.threads.ConnectionExecutors;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The sign {@code TlsClosedBody} reads at the end of an https origin's close-delimited body: whether the origin's
 * TLS stream ended with close_notify or was cut by a bare FIN (RFC 8446 §6.1), per upstream provider and protocol,
 * through {@link ClientTls} as the upstream pool uses it. Both providers' sockets read either end as -1; JSSE's
 * leaves its input shut down after a bare end only, and with Conscrypt the upstream client drives the engine itself
 * ({@link EngineSocket}), whose loop knows which it saw. Conscrypt's own socket told nothing (session 43's check by
 * hand), which is why it is no longer used towards origins. Also a socket with no channel (another transport's,
 * as the epoll transport dials), whose records are written as a stream.
 */
class UpstreamCloseNotifyTest {
    private static TestPki pki;
    private static SSLContext origin;
    private static ServerSocket listener;

    @BeforeAll
    static void start() throws Exception {
        TestPki.requireOpenssl();
        pki = TestPki.create("Upstream close_notify CA");
        origin = pki.serverContext(pki.issue("origin", "localhost", "localhost"));
        listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    }

    @AfterAll
    static void stop() throws IOException {
        if (listener != null) {
            listener.close();
        }
    }

    @ParameterizedTest(name = "{0} {1}, close_notify {2}, channel socket {3}")
    @CsvSource({
            "JDK, TLSv1.3, true, true", "JDK, TLSv1.3, false, true",
            "JDK, TLSv1.2, true, true", "JDK, TLSv1.2, false, true",
            "CONSCRYPT, TLSv1.3, true, true", "CONSCRYPT, TLSv1.3, false, true",
            "CONSCRYPT, TLSv1.2, true, true", "CONSCRYPT, TLSv1.2, false, true",
            "CONSCRYPT, TLSv1.3, true, false", "CONSCRYPT, TLSv1.3, false, false"})
    void theEndOfTheOriginsStreamSaysWhetherItCameWithCloseNotify(TlsProvider provider, String protocol,
                                                                 boolean closeNotify, boolean channelSocket)
            throws Exception {
        Assumptions.assumeTrue(provider.unavailableReason() == null, () -> provider.unavailableReason());
        ClientTls tls = ClientTls.create(new ClientTlsSettings(pki.caCert(), false, null, List.of(protocol), List.of(),
                provider));
        CompletableFuture<Void> served = serveOne(protocol, closeNotify);
        Socket raw = channelSocket ? tls.unconnectedSocket() : new Socket();
        raw.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), listener.getLocalPort()), 5_000);
        try (SSLSocket s = tls.handshake(raw, "localhost", listener.getLocalPort(), Duration.ofSeconds(5))) {
            raw.setSoTimeout(10_000);
            assertThat(s.getSession().getProtocol()).isEqualTo(protocol);
            if (provider == TlsProvider.CONSCRYPT) {
                assertThat(s).as("the gateway's engine socket, not Conscrypt's").isInstanceOf(EngineSocket.class);
            }
            assertThat(ClientTls.tellsCloseNotify(s)).isTrue();
            assertThat(ClientTls.endedWithoutCloseNotify(s)).as("before the end").isFalse();
            s.getOutputStream().write("GET / HTTP/1.1\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
            byte[] body = s.getInputStream().readAllBytes();
            assertThat(new String(body, StandardCharsets.ISO_8859_1)).isEqualTo("the body so far");
            assertThat(ClientTls.endedWithoutCloseNotify(s)).as("ended without close_notify").isEqualTo(!closeNotify);
        }
        served.get(10, TimeUnit.SECONDS);
    }

    /** Accepts one connection: TLS server, reads the request line, writes the body, closes either way. */
    private static CompletableFuture<Void> serveOne(String protocol, boolean closeNotify) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        ConnectionExecutors.startVirtual("close-notify-origin", () -> {
            try (Socket raw = listener.accept()) {
                raw.setSoTimeout(10_000);
                SSLSocket ssl = (SSLSocket) origin.getSocketFactory().createSocket(raw, null, raw.getPort(), true);
                ssl.setUseClientMode(false);
                ssl.setEnabledProtocols(new String[] {protocol});
                ssl.startHandshake();
                InputStream in = ssl.getInputStream();
                while (in.read() != '\n') {
                    // the request line is enough
                }
                OutputStream out = ssl.getOutputStream();
                out.write("the body so far".getBytes(StandardCharsets.ISO_8859_1));
                out.flush();
                if (closeNotify) {
                    ssl.close(); // close_notify, then FIN
                } else {
                    raw.close(); // FIN alone: a crash, or an attacker's cut
                }
                done.complete(null);
            } catch (Throwable t) {
                done.completeExceptionally(t);
            }
        });
        return done;
    }
}
