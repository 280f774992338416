package io.loomgate.tls;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.TestPki;
import io.loomgate.threads.ConnectionExecutors;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.channels.ServerSocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Session resumption on a listener with the default provider ({@code provider: auto}): on by default, so a client's
 * second handshake resumes (TLS 1.3 ticket), and off with {@code session-resumption: false} (no ticket resumes, no TLS
 * 1.2 session id). The client is {@code openssl s_client -sess_out} then {@code -sess_in}, which says "Reused".
 */
class ResumptionTest {
    private static TestPki pki;
    private static TestPki.Issued server;
    private final List<ServerSocket> listeners = new ArrayList<>();

    @BeforeAll
    static void certificates() throws Exception {
        TestPki.requireOpenssl();
        pki = TestPki.create("Resumption CA");
        server = pki.issue("server", "localhost", "localhost");
    }

    @AfterEach
    void close() throws IOException {
        for (ServerSocket s : listeners) {
            s.close();
        }
    }

    private static ServerTlsSettings defaults() {
        TlsProvider auto = TlsProvider.auto(List.of(), ServerTlsSettings.DEFAULT_PROTOCOLS).provider();
        return ServerTlsSettings.of(KeySource.pem(server.cert(), server.key())).withProvider(auto);
    }

    @Test
    void byDefaultASecondHandshakeResumes() throws Exception {
        ServerTlsSettings settings = defaults();
        assertThat(settings.sessionResumption()).isTrue();
        Assumptions.assumeTrue(settings.provider() == TlsProvider.CONSCRYPT
                        || !"0".equals(System.getProperty(ServerTls.TICKET_COUNT_PROPERTY)),
                "JSSE's tickets were turned off JVM-wide by an earlier listener in this JVM");
        int port = serve(ServerTls.create(settings));
        assertThat(resumes(port, "-tls1_3")).as("TLS 1.3 resumed with " + settings.provider()).isTrue();
    }

    @Test
    void withResumptionOffNoHandshakeResumes() throws Exception {
        ServerTlsSettings settings = defaults().withSessionResumption(false);
        int port = serve(ServerTls.create(settings));
        assertThat(resumes(port, "-tls1_3")).as("TLS 1.3 resumed with " + settings.provider()).isFalse();
        assertThat(resumes(port, "-tls1_2")).as("TLS 1.2 resumed with " + settings.provider()).isFalse();
    }

    /** A listener (channels, as the gateway's) that handshakes each connection, writes a line and closes. */
    private int serve(ServerTls tls) throws IOException {
        ServerSocket listener = ServerSocketChannel.open().socket();
        listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
        listeners.add(listener);
        ConnectionExecutors.startVirtual("resumption-accept", () -> {
            while (!listener.isClosed()) {
                try (Socket raw = listener.accept()) {
                    raw.setSoTimeout(30_000);
                    try (SSLSocket s = tls.handshake(raw)) {
                        s.getOutputStream().write("hello\n".getBytes(StandardCharsets.US_ASCII));
                        s.getOutputStream().flush();
                    } catch (IOException | RuntimeException e) {
                        // the client sees the failure
                    }
                } catch (IOException e) {
                    return; // closed by the test
                }
            }
        });
        return listener.getLocalPort();
    }

    /** Connects twice with openssl, the second time offering the first session; whether the server took it. */
    private static boolean resumes(int port, String version) throws IOException {
        Path session = Files.createTempFile(pki.dir(), "session", ".pem");
        Files.delete(session);
        String first = TestPki.run(sClient(port, version, "-sess_out", session));
        assertThat(first).contains("New, TLSv1." + version.charAt(version.length() - 1));
        if (!Files.exists(session)) {
            return false; // nothing to resume with: no ticket, no session id
        }
        String second = TestPki.run(sClient(port, version, "-sess_in", session));
        return second.contains("Reused, TLSv1.");
    }

    private static List<String> sClient(int port, String version, String sessionOption, Path session) {
        return List.of("openssl", "s_client", version, "-connect", "127.0.0.1:" + port, "-servername", "localhost",
                "-CAfile", pki.caCert().toString(), "-ign_eof", sessionOption, session.toString());
    }
}
