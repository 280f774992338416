package io.loomgate.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.TestPki;
import io.loomgate.threads.ConnectionExecutors;
import io.loomgate.tls.ClientTls;
import io.loomgate.tls.ClientTlsSettings;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.Arrays;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * JSSE layered over an epoll socket to an origin (an {@code https://} upstream on {@code transport: epoll}) reads each
 * TLS record in one read of the kernel, as it does over the JDK transport's {@code RecordBufferedSocket}: the socket
 * reads ahead through a record-sized buffer ({@link EpollSocket#readAhead}, asked by {@link ClientTls#handshake}).
 * Before, it took two (the header, then the body). The origin is a real JSSE server that waits for each ping before
 * it sends the next record, so every record arrives on its own; records of all sizes arrive whole and in order.
 */
class EpollOriginRecordReadsTest {
    private static final int RECORDS = 40;
    private static TestPki pki;
    private static SSLServerSocket origin;

    @BeforeAll
    static void start() throws Exception {
        pki = TestPki.create("Epoll record reads CA");
        TestPki.Issued server = pki.issue("origin", "localhost", "localhost");
        origin = (SSLServerSocket) pki.serverContext(server).getServerSocketFactory()
                .createServerSocket(0, 50, InetAddress.getLoopbackAddress());
        ConnectionExecutors.startVirtual("record-origin", () -> {
            while (!origin.isClosed()) {
                try (Socket s = origin.accept()) {
                    s.setSoTimeout(30_000);
                    InputStream in = s.getInputStream();
                    OutputStream out = s.getOutputStream();
                    for (int i = 0; i < RECORDS; i++) {
                        if (in.read() < 0) {
                            break;
                        }
                        out.write(record(i)); // one write: one TLS record (up to 16 KiB of plaintext)
                        out.flush();
                    }
                } catch (IOException e) {
                    // the next client, or closed by the test
                }
            }
        });
    }

    @AfterAll
    static void stop() throws IOException {
        origin.close();
    }

    /** Record i: sizes from a few bytes to a full 16 KiB record, each byte saying which record it is. */
    private static byte[] record(int i) {
        byte[] b = new byte[i % 4 == 3 ? 16_384 : 10 + i * 37];
        Arrays.fill(b, (byte) i);
        return b;
    }

    @Test
    void eachRecordFromAnOriginIsOneReadOfTheEpollSocket() throws Exception {
        EpollSocket raw = EpollSocket.connect(EpollPoller.shared(),
                new InetSocketAddress(InetAddress.getLoopbackAddress(), origin.getLocalPort()), 10_000);
        ClientTls tls = ClientTls.create(ClientTlsSettings.DEFAULTS.withTrust(pki.caCert()));
        try (SSLSocket s = tls.handshake(raw, "localhost", origin.getLocalPort(), Duration.ofSeconds(30))) {
            s.setSoTimeout(30_000);
            InputStream in = s.getInputStream();
            OutputStream out = s.getOutputStream();
            // The first exchange also takes the origin's post-handshake messages (TLS 1.3 session tickets).
            out.write('p');
            out.flush();
            readRecord(in, 0);
            long before = raw.readCalls();
            for (int i = 1; i < RECORDS; i++) {
                out.write('p');
                out.flush();
                readRecord(in, i);
            }
            double perRecord = (raw.readCalls() - before) / (double) (RECORDS - 1);
            assertThat(perRecord).as("reads of the kernel per TLS record").isLessThanOrEqualTo(1.5);
        }
    }

    private static void readRecord(InputStream in, int i) throws IOException {
        byte[] want = record(i);
        byte[] got = in.readNBytes(want.length);
        assertThat(got).as("record %d", i).isEqualTo(want);
    }
}
