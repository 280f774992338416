package io.loomgate.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.threads.ConnectionExecutors;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.util.Arrays;
import javax.net.ssl.SSLServerSocket;

/**
 * A real JSSE origin for counting reads per TLS record: for each byte a client sends it answers with the next of
 * {@link #RECORDS} records in one write (one TLS record each, from a few bytes to a full 16 KiB), so every record
 * arrives on its own. Its certificate is for {@code localhost}, issued by {@link #pki()}'s CA.
 */
public final class RecordOrigin implements AutoCloseable {
    /** How many records one connection gets. */
    public static final int RECORDS = 40;

    private final TestPki pki;
    private final SSLServerSocket server;

    private RecordOrigin(TestPki pki, SSLServerSocket server) {
        this.pki = pki;
        this.server = server;
    }

    /** Listens on a free loopback port; {@code caName} names the test's CA. */
    public static RecordOrigin start(String caName) throws Exception {
        TestPki pki = TestPki.create(caName);
        TestPki.Issued issued = pki.issue("origin", "localhost", "localhost");
        SSLServerSocket server = (SSLServerSocket) pki.serverContext(issued).getServerSocketFactory()
                .createServerSocket(0, 50, InetAddress.getLoopbackAddress());
        ConnectionExecutors.startVirtual("record-origin", () -> {
            while (!server.isClosed()) {
                try (Socket s = server.accept()) {
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
        return new RecordOrigin(pki, server);
    }

    public int port() {
        return server.getLocalPort();
    }

    /** The CA that issued the origin's certificate: what a client trusts. */
    public TestPki pki() {
        return pki;
    }

    /** Record i: sizes from a few bytes to a full 16 KiB record, each byte saying which record it is. */
    public static byte[] record(int i) {
        byte[] b = new byte[i % 4 == 3 ? 16_384 : 10 + i * 37];
        Arrays.fill(b, (byte) i);
        return b;
    }

    /** Reads record {@code i} from {@code in} and checks it arrived whole. */
    public static void readRecord(InputStream in, int i) throws IOException {
        byte[] want = record(i);
        byte[] got = in.readNBytes(want.length);
        assertThat(got).as("record %d", i).isEqualTo(want);
    }

    @Override
    public void close() throws IOException {
        server.close();
    }
}
