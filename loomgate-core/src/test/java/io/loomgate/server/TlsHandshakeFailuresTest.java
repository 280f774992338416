package io.loomgate.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.observe.GatewayMetrics;
import io.loomgate.testkit.RawClient;
import io.loomgate.testkit.TestPki;
import io.loomgate.threads.ConnectionExecutors;
import io.loomgate.threads.ThreadModel;
import io.loomgate.threads.Watchdog;
import io.loomgate.tls.KeySource;
import io.loomgate.tls.ServerTls;
import io.loomgate.tls.ServerTlsSettings;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A client TLS handshake that does not complete is counted by its reason in
 * {@code loomgate_client_tls_handshakes_failed_total}, so an operator can tell a port scan or a plain-HTTP client
 * ({@code failed}) from slow or silent clients ({@code timed-out}); the overloaded case ({@code not-started}) is
 * {@code TlsHandshakeBurstTest}'s. Real handshakes with the JDK's client against a listener whose events go to the
 * gateway's real metrics.
 */
class TlsHandshakeFailuresTest {
    /** Room for a cold JSSE handshake on a loaded machine; the silent client waits this long. */
    private static final Duration HANDSHAKE_TIMEOUT = Duration.ofSeconds(5);
    private static final ExchangeHandler ECHO = ex -> ex.respond(200, ex.request().target());
    private static SSLContext client;
    private static GatewayMetrics metrics;
    private static Listener listener;

    @BeforeAll
    static void start() throws Exception {
        TestPki pki = TestPki.create("Handshake failures CA");
        TestPki.Issued server = pki.issue("server", "localhost", "localhost");
        client = pki.clientContext(null);
        ServerTls tls = ServerTls.create(ServerTlsSettings.of(KeySource.pem(server.cert(), server.key())));
        metrics = new GatewayMetrics();
        listener = new Listener(RunningListener.settings(HANDSHAKE_TIMEOUT, Duration.ofSeconds(60),
                Duration.ofSeconds(60)), tls, ECHO, ConnectionExecutors.create(ThreadModel.VIRTUAL, "hs-fail-test"),
                metrics, Watchdog.shared(), null).start();
    }

    @AfterAll
    static void stop() {
        listener.close();
        metrics.close();
    }

    @Test
    void eachReasonIsCountedOnceAndACompletedHandshakeIsNot() throws Exception {
        // Plain HTTP on the TLS port: refused by the handshake.
        try (Socket s = new Socket("127.0.0.1", listener.port())) {
            s.setSoTimeout(30_000);
            OutputStream out = s.getOutputStream();
            out.write("GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            drainToEnd(s.getInputStream());
        }
        RunningListener.await("the refused handshake counted", () -> failures("failed") == 1);

        // A client that connects and says nothing: closed at the handshake timeout, counted as timed out.
        try (Socket s = new Socket("127.0.0.1", listener.port())) {
            s.setSoTimeout(30_000);
            drainToEnd(s.getInputStream()); // ends when the gateway closes it
        }
        RunningListener.await("the silent client counted", () -> failures("timed-out") == 1);

        // A real handshake and a request: nothing more counted.
        try (RawClient c = RawClient.tls(client, listener.port(), "localhost")) {
            RawClient.Response r = c.get("/ok");
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.bodyText()).isEqualTo("/ok");
        }
        RunningListener.await("every connection ended", () -> listener.openConnections() == 0);
        assertThat(failures("failed")).isEqualTo(1);
        assertThat(failures("timed-out")).isEqualTo(1);
        assertThat(failures("not-started")).isZero();
    }

    private static void drainToEnd(InputStream in) throws Exception {
        byte[] buf = new byte[4096];
        while (in.read(buf) >= 0) {
            // whatever the gateway sends (an alert) until it closes
        }
    }

    /** The counter's value for {@code reason} in the registry's Prometheus text; -1 when the series is missing. */
    private static double failures(String reason) {
        Matcher m = Pattern.compile("(?m)^loomgate_client_tls_handshakes_failed_total\\{reason=\"" + reason
                + "\"} (\\S+)$").matcher(metrics.registry().scrape());
        return m.find() ? Double.parseDouble(m.group(1)) : -1;
    }
}
