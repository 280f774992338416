package io.loomgate.tls;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.TestPki;
import io.loomgate.threads.ConnectionExecutors;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.channels.ServerSocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.PrivateKey;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code server.ssl.provider: conscrypt} at the socket level: Conscrypt's engine driven over an accepted channel by
 * the gateway's own loop, and for a socket with no channel Conscrypt's engine socket (never the file-descriptor one,
 * which blocks in native code), refused on JDKs where its {@code synchronized} I/O would pin carriers, and session
 * resumption really off when asked (the benchmark's new-connection workload must measure full handshakes), with
 * {@code openssl s_client} as the client that tries to resume. The listener-level behaviour (SNI, ALPN, client-auth,
 * reload, deadlines, pinning) is covered by the TLS tests of loomgate-cli, which the build runs once per provider.
 */
class ConscryptListenerTest {
    private static TestPki pki;
    private static TestPki.Issued server;
    private final List<ServerSocket> listeners = new ArrayList<>();

    @BeforeAll
    static void certificates() throws Exception {
        pki = TestPki.create("Conscrypt CA");
        server = pki.issue("server", "localhost", "localhost");
    }

    @AfterEach
    void close() throws IOException {
        for (ServerSocket s : listeners) {
            s.close();
        }
    }

    private ServerTlsSettings settings(boolean resumption) {
        return ServerTlsSettings.of(KeySource.pem(server.cert(), server.key())).withProvider(TlsProvider.CONSCRYPT)
                .withSessionResumption(resumption);
    }

    /**
     * A listener that handshakes each connection with {@code tls}, reports the socket, writes a line and closes. It
     * accepts channels, as the gateway's listener does (Conscrypt's engine driven by the gateway's loop), unless
     * {@code classic}: then sockets without a channel (as epoll's are), which the engine loop reads and writes
     * through their streams.
     */
    private BlockingQueue<Object> serve(ServerTls tls, boolean classic) throws IOException {
        ServerSocket listener = classic ? new ServerSocket() : ServerSocketChannel.open().socket();
        listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
        listeners.add(listener);
        BlockingQueue<Object> handshakes = new ArrayBlockingQueue<>(16);
        ConnectionExecutors.startVirtual("conscrypt-accept", () -> {
            while (!listener.isClosed()) {
                try (Socket raw = listener.accept()) {
                    raw.setSoTimeout(30_000);
                    try (SSLSocket s = tls.handshake(raw)) {
                        handshakes.add(s);
                        s.getOutputStream().write("hello\n".getBytes(StandardCharsets.US_ASCII));
                        s.getOutputStream().flush();
                    } catch (IOException | RuntimeException e) {
                        handshakes.add(e);
                    }
                } catch (IOException e) {
                    return; // closed by the test
                }
            }
        });
        return handshakes;
    }

    @Test
    void handshakesOnASocketWithoutAChannelRunOnTheGatewaysEngineLoopNeverConscryptsFileDescriptorSocket()
            throws Exception {
        BlockingQueue<Object> handshakes = serve(ServerTls.create(settings(true)), true);
        int port = listeners.get(0).getLocalPort();
        try (SSLSocket client = (SSLSocket) pki.clientContext(null).getSocketFactory()
                .createSocket("localhost", port)) {
            client.startHandshake();
            assertThat(client.getSession().getPeerPrincipal().getName()).isEqualTo("CN=localhost");
            Object served = handshakes.poll(60, TimeUnit.SECONDS);
            assertThat(served).isInstanceOf(SSLSocket.class);
            // Conscrypt's own socket was layered over such sockets until session 47; now the gateway's engine loop
            // drives Conscrypt's engine there too (as over a channel), so its file-descriptor socket never appears.
            assertThat(served).isInstanceOf(EngineSocket.class);
            assertThat(((SSLSocket) served).getSession().getClass().getName()).startsWith("org.conscrypt.");
        }
    }

    @Test
    void anAcceptedChannelIsDrivenThroughConscryptsEngineAndSmallReadsGetEveryByte() throws Exception {
        ServerTls tls = ServerTls.create(settings(true));
        byte[] sent = new byte[100_000]; // several records each way
        new Random(7).nextBytes(sent);
        CompletableFuture<Object> served = new CompletableFuture<>();
        try (ServerSocketChannel listener = ServerSocketChannel.open()) {
            listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            int port = ((InetSocketAddress) listener.getLocalAddress()).getPort();
            ConnectionExecutors.startVirtual("conscrypt-engine-accept", () -> {
                try (Socket raw = listener.accept().socket(); SSLSocket s = tls.handshake(raw)) {
                    raw.setSoTimeout(30_000);
                    // Reads far smaller than a record (an HTTP/2 frame header's 9 bytes): Conscrypt's engine
                    // decrypts the whole record and hands out what fits, keeping the rest for the next read.
                    InputStream in = s.getInputStream();
                    ByteArrayOutputStream got = new ByteArrayOutputStream();
                    byte[] small = new byte[9];
                    int n;
                    while (got.size() < sent.length && (n = in.read(small, 0, small.length)) > 0) {
                        got.write(small, 0, n);
                    }
                    s.getOutputStream().write(got.toByteArray());
                    served.complete(s);
                    in.read(); // until the client closes
                } catch (IOException | RuntimeException e) {
                    served.completeExceptionally(e);
                }
            });
            try (SSLSocket client = (SSLSocket) pki.clientContext(null).getSocketFactory()
                    .createSocket("localhost", port)) {
                client.getOutputStream().write(sent);
                client.getOutputStream().flush();
                byte[] echoed = client.getInputStream().readNBytes(sent.length);
                assertThat(Arrays.mismatch(echoed, sent)).as("the first byte that differs after the engine both ways")
                        .isEqualTo(-1);
                Object s = served.get(60, TimeUnit.SECONDS);
                assertThat(s).isInstanceOf(EngineSocket.class); // the gateway's loop over the channel
                assertThat(((SSLSocket) s).getSession().getClass().getName()).startsWith("org.conscrypt.");
            }
        }
    }

    @Test
    void olderJdksAreRefusedBecauseTheSocketBlocksInsideSynchronized() {
        assertThat(ConscryptTls.unavailableReason(21)).contains("needs JDK 24 or newer").contains("pins")
                .contains("provider: jdk");
        assertThat(ConscryptTls.unavailableReason(23)).isNotNull();
        assertThat(ConscryptTls.unavailableReason(Runtime.version().feature())).isNull(); // the build runs on 25
        assertThat(TlsProvider.JDK.unavailableReason()).isNull();
    }

    @Test
    void withResumptionOffNeitherATls13TicketNorATls12SessionIdResumes() throws Exception {
        TestPki.requireOpenssl();
        for (boolean classic : new boolean[] {false, true}) { // the engine loop over a channel, and over streams
            serve(ServerTls.create(settings(false)), classic);
            int port = listeners.get(listeners.size() - 1).getLocalPort();
            assertThat(resumes(port, "-tls1_3")).as("TLS 1.3 resumed, classic socket: " + classic).isFalse();
            assertThat(resumes(port, "-tls1_2")).as("TLS 1.2 resumed, classic socket: " + classic).isFalse();
        }
    }

    @Test
    void withResumptionOnAClientResumes() throws Exception { // the control: the check above can see a resumption
        TestPki.requireOpenssl();
        serve(ServerTls.create(settings(true)), false);
        int port = listeners.get(0).getLocalPort();
        assertThat(resumes(port, "-tls1_3")).as("TLS 1.3 resumed").isTrue();
    }

    @Test
    void theKeyIsMadeConscryptNativeOnceAtLoadAndAgainWhenItsFilesAreReloaded() throws Exception {
        Path dir = Files.createTempDirectory(pki.dir(), "native-key");
        Path cert = dir.resolve("server.crt");
        Path key = dir.resolve("server.key");
        TestPki.replace(server.cert(), cert);
        TestPki.replace(server.key(), key);
        ServerTls tls = ServerTls.create(ServerTlsSettings.of(KeySource.pem(cert, key))
                .withProvider(TlsProvider.CONSCRYPT).withSessionResumption(false));
        BlockingQueue<Object> handshakes = serve(tls, false);
        int port = listeners.get(0).getLocalPort();

        PrivateKey loaded = servedKey(tls);
        // Conscrypt's own key class: BoringSSL signs with it as it is, instead of parsing a JDK key's PKCS#8 bytes
        // into a new native key in every handshake.
        assertThat(loaded.getClass().getName()).startsWith("org.conscrypt.");
        assertThat(servedSubject(port, handshakes)).isEqualTo("CN=localhost");
        assertThat(servedSubject(port, handshakes)).isEqualTo("CN=localhost");
        assertThat(servedKey(tls)).isSameAs(loaded);

        TestPki.Issued renewed = pki.issue("renewed", "renewed.localhost", "localhost");
        TestPki.replace(renewed.key(), key);
        TestPki.replace(renewed.cert(), cert);
        tls.reload();
        PrivateKey reloaded = servedKey(tls);
        assertThat(reloaded).isNotSameAs(loaded);
        assertThat(reloaded.getClass().getName()).startsWith("org.conscrypt.");
        assertThat(servedSubject(port, handshakes)).isEqualTo("CN=renewed.localhost");
    }

    /** The key the next handshake without SNI signs with. */
    private static PrivateKey servedKey(ServerTls tls) {
        SniKeyManager keys = tls.keyManager();
        return keys.getPrivateKey(keys.chooseEngineServerAlias("EC", null, null));
    }

    private static String servedSubject(int port, BlockingQueue<Object> handshakes) throws Exception {
        try (SSLSocket client = (SSLSocket) pki.clientContext(null).getSocketFactory()
                .createSocket("localhost", port)) {
            client.startHandshake();
            String subject = client.getSession().getPeerPrincipal().getName();
            assertThat(handshakes.poll(60, TimeUnit.SECONDS)).isInstanceOf(SSLSocket.class);
            return subject;
        }
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
