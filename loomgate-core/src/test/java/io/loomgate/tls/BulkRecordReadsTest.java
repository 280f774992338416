package io.loomgate.tls;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.TestPki;
import io.loomgate.threads.ConnectionExecutors;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.StandardSocketOptions;
import java.nio.channels.ServerSocketChannel;
import java.security.MessageDigest;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.Test;

/**
 * A TLS upload whose records are already waiting when the server reads (the client sends faster than the gateway
 * relays): one read of the engine-driven socket returns the plaintext of every whole record buffered, up to the
 * caller's buffer, not one record per call, and the socket is read in pieces of several records. One record per call
 * cost a write to the origin per 16 KiB and a read of the client's socket per record (issue 34, U2 at 0.6x HAProxy).
 * Every byte still arrives, in order, with each provider.
 */
class BulkRecordReadsTest {
    private static final int BODY = 512 * 1024;
    private static final int RELAY_BUFFER = 128 * 1024;
    private static TestPki pki;
    private static SSLContext client;
    private static TestPki.Issued server;

    private static void pki() throws Exception {
        pki = TestPki.create("Bulk reads CA");
        server = pki.issue("server", "localhost", "localhost");
        client = pki.clientContext(null);
    }

    private static Socket connect(int port) throws IOException {
        Socket plain = new Socket();
        plain.setSendBufferSize(2 * BODY);
        plain.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 10_000);
        return plain;
    }

    @Test
    void aReadTakesEveryWholeRecordBufferedAndEveryByteArrives() throws Exception {
        check(TlsProvider.JDK);
    }

    /** The check, per provider (loomgate-conscrypt's ConscryptBulkRecordReadsTest runs it with Conscrypt). */
    static void check(TlsProvider provider) throws Exception {
        if (pki == null) {
            pki();
        }
        ServerTls tls = ServerTls.create(ServerTlsSettings.of(KeySource.pem(server.cert(), server.key()))
                .withProvider(provider));
        byte[] body = new byte[BODY];
        new Random(34).nextBytes(body);
        try (ServerSocketChannel listen = ServerSocketChannel.open()) {
            // Room in the socket buffers for the whole body, so the client can send it all before the first read.
            listen.setOption(StandardSocketOptions.SO_RCVBUF, 2 * BODY);
            listen.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            int port = ((InetSocketAddress) listen.getLocalAddress()).getPort();
            CompletableFuture<Void> sent = new CompletableFuture<>();
            ConnectionExecutors.startVirtual("bulk-client", () -> {
                try (Socket plain = connect(port);
                     SSLSocket s = (SSLSocket) client.getSocketFactory().createSocket(plain, "localhost", port,
                             true)) {
                    SSLParameters p = s.getSSLParameters();
                    p.setServerNames(List.of(new SNIHostName("localhost")));
                    s.setSSLParameters(p);
                    s.setSoTimeout(30_000);
                    OutputStream out = s.getOutputStream();
                    for (int off = 0; off < BODY; off += 16_384) { // a full record per write, as curl sends
                        out.write(body, off, Math.min(16_384, BODY - off));
                    }
                    out.flush();
                    sent.complete(null);
                    s.getInputStream().read(); // holds the connection open until the server has read it all
                } catch (IOException | RuntimeException e) {
                    sent.completeExceptionally(e);
                }
            });
            try (Socket raw = listen.accept().socket()) {
                raw.setSoTimeout(30_000);
                SSLSocket s = tls.handshake(raw);
                InputStream in = s.getInputStream();
                // The whole body waits in the socket buffers before the first read: the relay is behind the client.
                sent.get(30, TimeUnit.SECONDS);
                MessageDigest got = MessageDigest.getInstance("SHA-256");
                byte[] buffer = new byte[RELAY_BUFFER];
                int total = 0;
                int reads = 0;
                int largest = 0;
                while (total < BODY) {
                    int n = in.read(buffer, 0, buffer.length);
                    assertThat(n).as("read %d after %d bytes", reads, total).isPositive();
                    got.update(buffer, 0, n);
                    total += n;
                    reads++;
                    largest = Math.max(largest, n);
                }
                assertThat(total).isEqualTo(BODY);
                assertThat(got.digest()).isEqualTo(MessageDigest.getInstance("SHA-256").digest(body));
                // One record per call would be 32 reads of at most 16 KiB: here most calls fill the buffer.
                assertThat(largest).as("largest read").isGreaterThan(4 * 16_384);
                assertThat(reads).as("reads for %d bytes", BODY).isLessThanOrEqualTo(12);
                s.getOutputStream().write('k');
            }
        }
    }
}
