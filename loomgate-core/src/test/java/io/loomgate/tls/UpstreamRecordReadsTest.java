package io.loomgate.tls;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.TestPki;
import io.loomgate.threads.ConnectionExecutors;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * JSSE layered over {@link RecordBufferedSocket} (what the upstream client dials https origins with) reads each TLS
 * record in one read of the socket, where over a plain socket it takes two (the header, then the body), and still
 * hands over every byte, records of all sizes, in order. The origin is a real JSSE server; it waits for each ping
 * before sending the next record, so every record arrives on its own.
 */
class UpstreamRecordReadsTest {
    private static final int RECORDS = 40;
    private static TestPki pki;
    private static SSLServerSocket origin;

    @BeforeAll
    static void start() throws Exception {
        pki = TestPki.create("Record reads CA");
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
    void eachRecordIsOneReadOfTheSocketAndEveryByteArrives() throws Exception {
        assertThat(readsPerRecord(new CountingSocket())).isLessThanOrEqualTo(1.5);
    }

    @Test
    void overAPlainSocketJsseTakesTwoReadsPerRecord() throws Exception { // the control: the count above can see it
        assertThat(readsPerRecord(new PlainCountingSocket())).isGreaterThanOrEqualTo(2.0);
    }

    private double readsPerRecord(Counted socket) throws Exception {
        Socket raw = (Socket) socket;
        raw.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), origin.getLocalPort()), 10_000);
        ClientTls tls = ClientTls.create(ClientTlsSettings.DEFAULTS.withTrust(pki.caCert()));
        try (SSLSocket s = tls.handshake(raw, "localhost", origin.getLocalPort(), Duration.ofSeconds(30))) {
            s.setSoTimeout(30_000);
            InputStream in = s.getInputStream();
            OutputStream out = s.getOutputStream();
            // The first exchange also takes the origin's post-handshake messages (TLS 1.3 session tickets).
            out.write('p');
            out.flush();
            readRecord(in, 0);
            int before = socket.reads().get();
            for (int i = 1; i < RECORDS; i++) {
                out.write('p');
                out.flush();
                readRecord(in, i);
            }
            return (socket.reads().get() - before) / (double) (RECORDS - 1);
        }
    }

    private static void readRecord(InputStream in, int i) throws IOException {
        byte[] want = record(i);
        byte[] got = in.readNBytes(want.length);
        assertThat(got).as("record %d", i).isEqualTo(want);
    }

    private interface Counted {
        AtomicInteger reads();
    }

    /** The gateway's socket, counting the reads that reach the TCP socket under its buffer. */
    private static final class CountingSocket extends RecordBufferedSocket implements Counted {
        private final AtomicInteger reads = new AtomicInteger();

        @Override
        InputStream socketInput() throws IOException {
            return counting(super.socketInput(), reads);
        }

        @Override
        public AtomicInteger reads() {
            return reads;
        }
    }

    /** A plain socket counting the reads JSSE makes of it. */
    private static final class PlainCountingSocket extends Socket implements Counted {
        private final AtomicInteger reads = new AtomicInteger();
        private InputStream input;

        @Override
        public InputStream getInputStream() throws IOException { // called once, by JSSE when it is layered
            if (input == null) {
                input = counting(super.getInputStream(), reads);
            }
            return input;
        }

        @Override
        public AtomicInteger reads() {
            return reads;
        }
    }

    private static InputStream counting(InputStream in, AtomicInteger reads) {
        return new FilterInputStream(in) {
            @Override
            public int read() throws IOException {
                reads.incrementAndGet();
                return super.read();
            }

            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                reads.incrementAndGet();
                return super.read(b, off, len);
            }
        };
    }
}
