package io.loomgate.tls;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.TestPki;
import io.loomgate.threads.ConnectionExecutors;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * With Conscrypt, a listener's records are encrypted into direct buffers lent for each write (BoringSSL writes the
 * ciphertext there and the socket sends it from there, no copy through the heap): every byte still arrives, in
 * order, in small writes and in writes of many records, and when every direct buffer is lent (writers blocked on
 * clients that do not read) a write takes a heap buffer instead, so native memory stays bounded.
 */
class ConscryptDirectWritesTest {
    private static TestPki.Issued server;
    private static SSLContext client;

    @BeforeAll
    static void pki() throws Exception {
        TestPki pki = TestPki.create("Direct writes CA");
        server = pki.issue("server", "localhost", "localhost");
        client = pki.clientContext(null);
    }

    @Test
    void theDirectBuffersAreBoundedAndLentAgainOnceGivenBack() {
        List<ByteBuffer> lent = new ArrayList<>();
        try {
            ByteBuffer b;
            while (lent.size() <= RecordBuffers.DIRECT_CAPACITY && (b = RecordBuffers.takeDirect()) != null) {
                assertThat(b.isDirect()).isTrue();
                assertThat(b.capacity()).isEqualTo(RecordBuffers.SIZE);
                assertThat(b.position()).isZero();
                assertThat(b.limit()).isEqualTo(RecordBuffers.SIZE);
                lent.add(b);
            }
            assertThat(lent).hasSizeLessThanOrEqualTo(RecordBuffers.DIRECT_CAPACITY).isNotEmpty();
            assertThat(RecordBuffers.takeDirect()).as("a direct buffer past the bound").isNull();
        } finally {
            lent.forEach(RecordBuffers::giveDirect);
        }
        ByteBuffer again = RecordBuffers.takeDirect();
        assertThat(again).isNotNull();
        RecordBuffers.giveDirect(again);
    }

    @Test
    void everyByteArrivesThroughTheDirectBuffers() throws Exception {
        sendAndCheck();
    }

    @Test
    void everyByteArrivesThroughHeapBuffersWhenNoDirectOneIsFree() throws Exception {
        List<ByteBuffer> held = new ArrayList<>();
        try {
            ByteBuffer b;
            while ((b = RecordBuffers.takeDirect()) != null) {
                held.add(b);
            }
            sendAndCheck();
        } finally {
            held.forEach(RecordBuffers::giveDirect);
        }
    }

    /**
     * The server writes pieces of every size from one byte to several records, then a whole body of many records,
     * over a Conscrypt connection driven by the gateway's loop; the client checks what it read.
     */
    private static void sendAndCheck() throws Exception {
        ServerTls tls = ServerTls.create(ServerTlsSettings.of(KeySource.pem(server.cert(), server.key()))
                .withProvider(TlsProvider.CONSCRYPT));
        byte[] body = new byte[300 * 1024];
        new Random(39).nextBytes(body);
        int[] pieces = {1, 2, 100, 16_384, 16_385, 40_000};
        int small = 0;
        for (int p : pieces) {
            small += p;
        }
        int expected = small + body.length;
        try (ServerSocketChannel listen = ServerSocketChannel.open()) {
            listen.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            int port = ((InetSocketAddress) listen.getLocalAddress()).getPort();
            CompletableFuture<byte[]> received = new CompletableFuture<>();
            ConnectionExecutors.startVirtual("direct-writes-client", () -> {
                try (Socket plain = new Socket(InetAddress.getLoopbackAddress(), port);
                     SSLSocket s = (SSLSocket) client.getSocketFactory().createSocket(plain, "localhost", port,
                             true)) {
                    SSLParameters p = s.getSSLParameters();
                    p.setServerNames(List.of(new SNIHostName("localhost")));
                    s.setSSLParameters(p);
                    s.setSoTimeout(30_000);
                    received.complete(s.getInputStream().readNBytes(expected));
                } catch (IOException | RuntimeException e) {
                    received.completeExceptionally(e);
                }
            });
            try (Socket raw = listen.accept().socket()) {
                raw.setSoTimeout(30_000);
                SSLSocket s = tls.handshake(raw);
                MessageDigest sent = MessageDigest.getInstance("SHA-256");
                int at = 0;
                for (int p : pieces) {
                    s.getOutputStream().write(body, at, p);
                    sent.update(body, at, p);
                    at += p;
                }
                s.getOutputStream().write(body);
                sent.update(body);
                byte[] got = received.get(30, TimeUnit.SECONDS);
                assertThat(got).hasSize(expected);
                assertThat(MessageDigest.getInstance("SHA-256").digest(got)).isEqualTo(sent.digest());
            }
        }
    }
}
