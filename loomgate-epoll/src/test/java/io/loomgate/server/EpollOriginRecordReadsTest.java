package io.loomgate.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.RecordOrigin;
import io.loomgate.tls.ClientTls;
import io.loomgate.tls.ClientTlsSettings;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
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
    private static RecordOrigin origin;

    @BeforeAll
    static void start() throws Exception {
        origin = RecordOrigin.start("Epoll record reads CA");
    }

    @AfterAll
    static void stop() throws IOException {
        origin.close();
    }

    @Test
    void eachRecordFromAnOriginIsOneReadOfTheEpollSocket() throws Exception {
        EpollSocket raw = EpollSocket.connect(EpollPoller.shared(),
                new InetSocketAddress(InetAddress.getLoopbackAddress(), origin.port()), 10_000);
        ClientTls tls = ClientTls.create(ClientTlsSettings.DEFAULTS.withTrust(origin.pki().caCert()));
        try (SSLSocket s = tls.handshake(raw, "localhost", origin.port(), Duration.ofSeconds(30))) {
            s.setSoTimeout(30_000);
            InputStream in = s.getInputStream();
            OutputStream out = s.getOutputStream();
            // The first exchange also takes the origin's post-handshake messages (TLS 1.3 session tickets).
            out.write('p');
            out.flush();
            RecordOrigin.readRecord(in, 0);
            long before = raw.readCalls();
            for (int i = 1; i < RecordOrigin.RECORDS; i++) {
                out.write('p');
                out.flush();
                RecordOrigin.readRecord(in, i);
            }
            double perRecord = (raw.readCalls() - before) / (double) (RecordOrigin.RECORDS - 1);
            assertThat(perRecord).as("reads of the kernel per TLS record").isLessThanOrEqualTo(1.5);
        }
    }

}
