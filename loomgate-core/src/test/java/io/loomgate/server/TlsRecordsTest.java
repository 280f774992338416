package io.loomgate.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.loomgate.testkit.RawClient;
import io.loomgate.testkit.TestPki;
import io.loomgate.threads.ConnectionExecutors;
import io.loomgate.threads.ThreadModel;
import io.loomgate.threads.Watchdog;
import io.loomgate.tls.KeySource;
import io.loomgate.tls.ServerTls;
import io.loomgate.tls.ServerTlsSettings;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The TLS listener's record handling (JSSE's engine driven over the accepted channel), over real handshakes with the
 * JDK's client: records split across reads at every byte, records larger than the reader's buffer, a request body
 * and a response of many records, a TLS 1.3 KeyUpdate in the middle of a connection, and a TLS 1.2 renegotiation,
 * which is refused without disturbing anyone else. On the JDK's sockets here; {@code EpollTlsRecordsTest} (module
 * loomgate-epoll) runs every case again on {@code transport: epoll}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS) // the listener is made once, on the transport the subclass names
class TlsRecordsTest {
    /** Answers with the request body, or with the target when there is none; the exchange index follows '#'. */
    private static final ExchangeHandler ECHO = ex -> {
        byte[] body = ex.requestBody().readAllBytes();
        ex.respond(200, (body.length > 0 ? new String(body, StandardCharsets.US_ASCII) : ex.request().target())
                + "#" + ex.requestIndex());
    };
    private TestPki pki;
    private SSLContext client;
    private Listener listener;

    /** The listener's transport; the epoll module's subclass runs every case on its own. */
    Transport transport() {
        return Transport.JDK;
    }

    @BeforeAll
    void start() throws Exception {
        pki = TestPki.create("Records CA");
        TestPki.Issued server = pki.issue("server", "localhost", "localhost");
        client = pki.clientContext(null);
        ServerTls tls = ServerTls.create(ServerTlsSettings.of(KeySource.pem(server.cert(), server.key())));
        ListenerSettings s = RunningListener.settings(Duration.ofSeconds(10), Duration.ofSeconds(60),
                Duration.ofSeconds(60));
        listener = new Listener(s, tls, ECHO, ConnectionExecutors.create(ThreadModel.VIRTUAL, "tls-records-test"),
                new IdleConnectionParkingTest.Counting(), Watchdog.shared(), null).transport(transport()).start();
        assertThat(listener.transport()).isEqualTo(transport());
    }

    @AfterAll
    void stop() throws IOException {
        listener.close();
    }

    /** A TLS client socket limited to {@code protocol}, over {@code plain} (connected to the listener). */
    private SSLSocket tls(Socket plain, String protocol) throws IOException {
        SSLSocket s = (SSLSocket) client.getSocketFactory().createSocket(plain, "localhost", listener.port(), true);
        SSLParameters p = s.getSSLParameters();
        p.setProtocols(new String[] {protocol});
        p.setServerNames(List.of(new SNIHostName("localhost")));
        s.setSSLParameters(p);
        s.setSoTimeout(20_000);
        s.startHandshake();
        return s;
    }

    private static String post(RawClient c, String body) throws IOException {
        c.send("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: " + body.length() + "\r\n\r\n" + body);
        RawClient.Response r = c.read();
        assertThat(r.status()).isEqualTo(200);
        return r.bodyText();
    }

    private static String letters(int n, long seed) {
        Random random = new Random(seed);
        StringBuilder b = new StringBuilder(n);
        for (int i = 0; i < n; i++) {
            b.append((char) ('a' + random.nextInt(26)));
        }
        return b.toString();
    }

    @Test
    void recordsArrivingAByteAtATimeAreReassembledFromTheHandshakeOn() throws Exception {
        // Every byte the client sends is its own write on a socket without Nagle: the ClientHello, the Finished and
        // each request record reach the server in pieces, header split from body at every offset.
        try (SSLSocket s = tls(new TricklingSocket(listener.port()), "TLSv1.3"); RawClient c = new RawClient(s)) {
            assertThat(post(c, "dribbled")).isEqualTo("dribbled#0");
            assertThat(post(c, "again")).isEqualTo("again#1");
        }
    }

    @Test
    void aBodyOfManyRecordsGoesThroughWholeBothWays() throws Exception {
        // 100 KB: requests of full 16 KB records, each larger than the connection's 8 KB read buffer, and a
        // response of seven records, on TLS 1.3 and TLS 1.2.
        String body = letters(100_000, 42);
        for (String protocol : List.of("TLSv1.3", "TLSv1.2")) {
            try (SSLSocket s = tls(new Socket("127.0.0.1", listener.port()), protocol);
                 RawClient c = new RawClient(s)) {
                assertThat(post(c, body)).isEqualTo(body + "#0");
                assertThat(post(c, "small")).isEqualTo("small#1");
            }
        }
    }

    @Test
    void aTls13KeyUpdateInTheMiddleOfAConnectionIsTakenAndTheConnectionGoesOn() throws Exception {
        try (SSLSocket s = tls(new Socket("127.0.0.1", listener.port()), "TLSv1.3"); RawClient c = new RawClient(s)) {
            assertThat(post(c, "before")).isEqualTo("before#0");
            // On an established TLS 1.3 connection the JDK's client sends KeyUpdate (RFC 8446 §4.6.3) and encrypts
            // what follows with its next keys: the server must read the message and switch to keep reading.
            s.startHandshake();
            assertThat(post(c, "after")).isEqualTo("after#1");
            assertThat(post(c, "and after")).isEqualTo("and after#2");
        }
    }

    @Test
    void keyUpdatesWithDataBetweenAreTakenButThirtyThreeInARowEndTheConnection() throws Exception {
        try (SSLSocket s = tls(new Socket("127.0.0.1", listener.port()), "TLSv1.3"); RawClient c = new RawClient(s)) {
            // 32 in a row, then data, again and again: BoringSSL's bound counts key updates without data between
            for (int i = 0; i < 3; i++) {
                for (int k = 0; k < 32; k++) {
                    s.startHandshake();
                }
                assertThat(post(c, "after 32")).isEqualTo("after 32#" + i);
            }
        }
        try (SSLSocket s = tls(new Socket("127.0.0.1", listener.port()), "TLSv1.3"); RawClient c = new RawClient(s)) {
            // the 33rd without data is refused, unanswered: close_notify, and the request after is never served
            assertThatThrownBy(() -> {
                for (int k = 0; k < 33; k++) {
                    s.startHandshake();
                }
                post(c, "after 33");
            }).isInstanceOfAny(IOException.class, AssertionError.class);
        }
        try (SSLSocket s = tls(new Socket("127.0.0.1", listener.port()), "TLSv1.3"); RawClient c = new RawClient(s)) {
            assertThat(post(c, "someone else")).isEqualTo("someone else#0");
        }
    }

    @Test
    void aTls12RenegotiationIsRefusedAndEndsOnlyThatConnection() throws Exception {
        try (SSLSocket s = tls(new Socket("127.0.0.1", listener.port()), "TLSv1.2"); RawClient c = new RawClient(s)) {
            assertThat(post(c, "before")).isEqualTo("before#0");
            assertThatThrownBy(() -> {
                s.startHandshake(); // a new ClientHello on the same connection
                post(c, "after");
            }).isInstanceOf(IOException.class);
        }
        try (SSLSocket s = tls(new Socket("127.0.0.1", listener.port()), "TLSv1.2"); RawClient c = new RawClient(s)) {
            assertThat(post(c, "someone else")).isEqualTo("someone else#0");
        }
    }

    /** A plain socket whose every written byte is a write of its own, with Nagle off. */
    private static final class TricklingSocket extends Socket {
        TricklingSocket(int port) throws IOException {
            super("127.0.0.1", port);
            setTcpNoDelay(true);
        }

        @Override
        public OutputStream getOutputStream() throws IOException {
            OutputStream out = super.getOutputStream();
            return new OutputStream() {
                @Override
                public void write(int b) throws IOException {
                    out.write(b);
                }

                @Override
                public void write(byte[] b, int off, int len) throws IOException {
                    for (int i = 0; i < len; i++) {
                        out.write(b[off + i]);
                    }
                }
            };
        }
    }
}
