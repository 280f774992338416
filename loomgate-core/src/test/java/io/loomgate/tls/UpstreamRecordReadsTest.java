package io.loomgate.tls;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.RecordOrigin;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
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
    private static RecordOrigin origin;

    @BeforeAll
    static void start() throws Exception {
        origin = RecordOrigin.start("Record reads CA");
    }

    @AfterAll
    static void stop() throws IOException {
        origin.close();
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
        raw.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), origin.port()), 10_000);
        ClientTls tls = ClientTls.create(ClientTlsSettings.DEFAULTS.withTrust(origin.pki().caCert()));
        try (SSLSocket s = tls.handshake(raw, "localhost", origin.port(), Duration.ofSeconds(30))) {
            s.setSoTimeout(30_000);
            InputStream in = s.getInputStream();
            OutputStream out = s.getOutputStream();
            // The first exchange also takes the origin's post-handshake messages (TLS 1.3 session tickets).
            out.write('p');
            out.flush();
            RecordOrigin.readRecord(in, 0);
            int before = socket.reads().get();
            for (int i = 1; i < RecordOrigin.RECORDS; i++) {
                out.write('p');
                out.flush();
                RecordOrigin.readRecord(in, i);
            }
            return (socket.reads().get() - before) / (double) (RecordOrigin.RECORDS - 1);
        }
    }


    private interface Counted {
        AtomicInteger reads();
    }

    /** The gateway's socket, counting the reads that reach the TCP socket under its buffer. */
    private static final class CountingSocket extends RecordBufferedSocket implements Counted {
        private final AtomicInteger reads = new AtomicInteger();

        CountingSocket() throws IOException {
        }

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
