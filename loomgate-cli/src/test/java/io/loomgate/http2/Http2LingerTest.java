package io.loomgate.http2;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.management.HotSpotDiagnosticMXBean;
import io.loomgate.testkit.RunningGateway;
import io.loomgate.testkit.TestOrigin;
import io.loomgate.testkit.TestPki;
import io.loomgate.threads.ConnectionExecutors;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The bounds of HTTP/2's lingering ends against a client that trickles: after a GOAWAY for a connection error (the
 * server's LingeringClose, the listener's linger-timeout in all; it had a 1 s per-read timeout and no total deadline,
 * so a frame every half second held it for days), and after an early answer on a stream whose request body keeps
 * coming (the connection's reader discards the rest for at most the linger-timeout, then RST_STREAM NO_ERROR; the
 * stream's thread has ended).
 */
// Side by side (the module's surefire configuration enables JUnit's parallel mode for classes that ask): each test
// starts its own origin and gateway and waits out a bound of the gateway; six in a row were 56 s of the suite. The
// bound is set short since session 57 (LINGER; LONGER_LINGER where a test must tell "at once" from "at the bound"):
// at the default 10 s this class was 10.6 s of the suite.
// The last test's thread dump matches every connection's stream 1, a neighbour's too: here every stream 1 is
// answered early (a 401 before its body), so its thread ends at once unless the behaviour under test broke.
@Execution(ExecutionMode.CONCURRENT)
public class Http2LingerTest {
    /** The gateway's linger-timeout in the tests that wait it out (the default is 10 s). */
    private static final Duration LINGER = Duration.ofSeconds(2);
    /**
     * The linger-timeout where a stream's thread must be seen gone (within {@link #THREAD_GONE_WITHIN}) before the
     * bound: the thread that read the rest itself (until session 43) lived until the bound.
     */
    private static final Duration LONGER_LINGER = Duration.ofSeconds(5);
    private static final Duration THREAD_GONE_WITHIN = Duration.ofSeconds(3);
    /**
     * The bound the tests hold the gateway to: LINGER, and room for a slow CI; under the default 10 s, so that a
     * gateway that ignored the setting (or had no total deadline) fails.
     */
    private static final Duration CLOSED_WITHIN = Duration.ofSeconds(9);
    private static final Duration TRICKLE = Duration.ofMillis(500);

    private static final String KEYED = """
            filters:
              - name: ApiKeyAuth
                args: { keys: { nobody: "sha256:%s" } }
            """.formatted("0".repeat(64));

    @Test
    void aClientTricklingAfterAGoAwayForAnErrorIsClosedWithinTheLingerBound() throws Exception {
        try (TestOrigin origin = new TestOrigin(); RunningGateway gw = keyedGateway(origin, "h2c", null, LINGER);
             Socket socket = connect(gw.port()); RawH2Client c = new RawH2Client(socket)) {
            c.data(0, new byte[1], false); // DATA on stream 0: a connection error (RFC 9113 §6.1)
            RawH2Client.Frame goAway = c.awaitGoAway();
            assertThat(goAway).as("GOAWAY").isNotNull();
            assertThat(goAway.errorCode()).isEqualTo(Frames.PROTOCOL_ERROR);
            long t0 = System.nanoTime();
            AtomicBoolean stop = new AtomicBoolean();
            Thread trickler = ConnectionExecutors.startVirtual("h2-trickler", () -> {
                try {
                    for (long i = 0; !stop.get(); i++) {
                        c.ping(i); // 17 bytes every half second: each of the linger's reads gets some
                        Thread.sleep(TRICKLE); // the hostile client's pace, not a wait for readiness
                    }
                } catch (IOException | InterruptedException e) {
                    // the gateway closed: the end this test waits for
                }
            });
            // The trickler's write fails once the gateway closed (its half-close, a FIN, came first: EOF alone is not
            // the end); the join's timeout is the poll's deadline.
            trickler.join(CLOSED_WITHIN.plusSeconds(10));
            stop.set(true);
            assertThat(trickler.isAlive()).as("still open after %s", CLOSED_WITHIN.plusSeconds(10)).isFalse();
            assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(CLOSED_WITHIN);
        }
    }

    @Test
    void aStreamAnsweredEarlyWhoseBodyTricklesIsResetWithNoErrorWithinTheBound() throws Exception {
        try (TestOrigin origin = new TestOrigin(); RunningGateway gw = keyedGateway(origin, "h2c", null, LINGER);
             Socket socket = connect(gw.port()); RawH2Client c = new RawH2Client(socket)) {
            c.headers(1, RawH2Client.request("POST", "/up", "content-length", "1000000000"), false);
            c.data(1, new byte[1000], false);
            RawH2Client.Frame head = c.await(f -> f.is(Frames.HEADERS, 1));
            assertThat(c.fields(head)).containsEntry(":status", "401");
            assertThat(c.body(1)).as("the early answer, whole").contains("API key");
            long t0 = System.nanoTime();
            AtomicBoolean stop = new AtomicBoolean();
            Thread trickler = ConnectionExecutors.startVirtual("h2-body-trickler", () -> {
                try {
                    while (!stop.get()) {
                        c.data(1, new byte[1], false);
                        Thread.sleep(TRICKLE); // the hostile client's pace, not a wait for readiness
                    }
                } catch (IOException | InterruptedException e) {
                    // test over
                }
            });
            try {
                RawH2Client.Frame rst = c.await(f -> f.is(Frames.RST_STREAM, 1));
                assertThat(rst).as("RST_STREAM on the stream answered early").isNotNull();
                assertThat(rst.errorCode()).isEqualTo(Frames.NO_ERROR);
                assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(CLOSED_WITHIN);
                // The connection serves on: the other streams were not held up meanwhile.
                stop.set(true);
                c.headers(3, RawH2Client.request("GET", "/other", "x-api-key", "wrong"), true);
                RawH2Client.Frame other = c.await(f -> f.is(Frames.HEADERS, 3));
                assertThat(c.fields(other)).containsEntry(":status", "401");
            } finally {
                stop.set(true);
                trickler.interrupt();
            }
            assertThat(origin.requestCount()).isZero();
        }
    }

    /**
     * DATA that arrives for a stream the gateway reset after its early answer still counts against the connection's
     * window, and the gateway credits it (RFC 9113 §6.9): 20 such streams, each sent its whole 64 KiB stream window
     * after its reset (1.25 MiB, more than the connection's 1 MiB window), must not starve the connection: no
     * FLOW_CONTROL_ERROR, WINDOW_UPDATE on stream 0, and a later stream with a body is answered.
     */
    @Test
    void dataForStreamsResetAfterAnEarlyAnswerIsCreditedToTheConnection() throws Exception {
        int streams = 20;
        try (TestOrigin origin = new TestOrigin(); RunningGateway gw = keyedGateway(origin, "h2c", null, LINGER);
             Socket socket = connect(gw.port()); RawH2Client c = new RawH2Client(socket)) {
            for (int i = 0; i < streams; i++) {
                c.headers(1 + 2 * i, RawH2Client.request("POST", "/up", "content-length", "1000000000"), false);
            }
            // Each stream's rest is taken for up to 5 s per read, LINGER in all; nothing comes, so each is reset
            // (NO_ERROR).
            java.util.Set<Integer> reset = new java.util.HashSet<>();
            while (reset.size() < streams) {
                RawH2Client.Frame f = c.await(x -> x.type() == Frames.RST_STREAM || x.type() == Frames.GOAWAY);
                assertThat(f).as("RST_STREAM for every stream answered early").isNotNull();
                assertThat(f.type()).as("no GOAWAY").isEqualTo(Frames.RST_STREAM);
                assertThat(f.errorCode()).isEqualTo(Frames.NO_ERROR);
                reset.add(f.stream());
            }
            boolean[] credited = new boolean[1];
            List<Integer> answeredClosed = new ArrayList<>();
            for (int i = 0; i < streams; i++) {
                for (int k = 0; k < 4; k++) {
                    c.data(1 + 2 * i, new byte[16383], false); // within the stream's window of 65,535
                }
            }
            int last = 1 + 2 * streams;
            c.headers(last, RawH2Client.request("POST", "/after", "content-length", "16000"), false);
            c.data(last, new byte[16000], true);
            RawH2Client.Frame answer = c.await(f -> {
                credited[0] |= f.is(Frames.WINDOW_UPDATE, 0);
                if (f.type() == Frames.RST_STREAM) {
                    answeredClosed.add(f.stream());
                }
                return f.is(Frames.HEADERS, last) || f.type() == Frames.GOAWAY;
            });
            assertThat(answer).as("an answer on the connection after the stuffed streams").isNotNull();
            assertThat(answer.type()).as("not GOAWAY (FLOW_CONTROL_ERROR)").isEqualTo(Frames.HEADERS);
            assertThat(c.fields(answer)).containsEntry(":status", "401");
            assertThat(credited[0]).as("WINDOW_UPDATE on stream 0 for the DATA of reset streams").isTrue();
            assertThat(answeredClosed).as("RST_STREAM for DATA in flight on streams the gateway reset (RFC 9113"
                    + " §5.1: ignored)").isEmpty();
        }
    }

    /**
     * The stream's thread of an early answer ends when its handler returns: the connection's reader discards the
     * rest of the request (until session 43 the thread itself read it, for up to 10 s). The client keeps sending
     * the whole time; the rest is still taken within the bound, then RST_STREAM NO_ERROR.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"h2c", "jdk", "conscrypt"})
    void anEarlyAnsweredStreamsThreadEndsWhileTheReaderDiscardsTheRest(String listener) throws Exception {
        TestPki pki = listener.equals("h2c") ? null : TestPki.create("h2 linger CA");
        try (TestOrigin origin = new TestOrigin();
             RunningGateway gw = keyedGateway(origin, listener, pki, LONGER_LINGER);
             Socket socket = connect(gw.port(), pki); RawH2Client c = new RawH2Client(socket)) {
            c.headers(1, RawH2Client.request("POST", "/up", "content-length", "1000000000"), false);
            c.data(1, new byte[1000], false);
            RawH2Client.Frame head = c.await(f -> f.is(Frames.HEADERS, 1));
            assertThat(c.fields(head)).containsEntry(":status", "401");
            assertThat(c.body(1)).as("the early answer, whole").contains("API key");
            AtomicBoolean stop = new AtomicBoolean();
            Thread trickler = ConnectionExecutors.startVirtual("h2-body-sender", () -> {
                try {
                    while (!stop.get()) {
                        c.data(1, new byte[1000], false);
                        Thread.sleep(TRICKLE); // the client's pace, not a wait for readiness
                    }
                } catch (IOException | InterruptedException e) {
                    // test over
                }
            });
            try {
                // Polled with a deadline well under the LONGER_LINGER a sent rest is read for.
                long end = System.nanoTime() + THREAD_GONE_WITHIN.toNanos();
                List<String> streamThreads = streamThreads(1);
                while (!streamThreads.isEmpty() && System.nanoTime() < end) {
                    Thread.sleep(50);
                    streamThreads = streamThreads(1);
                }
                assertThat(streamThreads).as("stream 1's thread, still alive while the client sends its rest")
                        .isEmpty();
                // The rest is still taken (no reset yet: the client is sending), and the bound still ends it.
                RawH2Client.Frame rst = c.await(f -> f.is(Frames.RST_STREAM, 1));
                assertThat(rst).as("RST_STREAM at the bound").isNotNull();
                assertThat(rst.errorCode()).isEqualTo(Frames.NO_ERROR);
            } finally {
                stop.set(true);
                trickler.interrupt();
            }
        }
    }

    /** The virtual threads named as the gateway names a stream's thread: {@code h2-<connection>-<stream>}. */
    private static List<String> streamThreads(int stream) throws IOException {
        return threadsNamed("h2-\\d+-" + stream);
    }

    /** The names of this JVM's threads, virtual ones included, that match {@code regex} whole. */
    public static List<String> threadsNamed(String regex) throws IOException {
        Path dump = Files.createTempFile("threads", ".json");
        Files.delete(dump);
        try {
            ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class)
                    .dumpThreads(dump.toString(), HotSpotDiagnosticMXBean.ThreadDumpFormat.JSON);
            Matcher m = Pattern.compile("\"name\": \"(" + regex + ")\"").matcher(Files.readString(dump));
            List<String> names = new ArrayList<>();
            while (m.find()) {
                names.add(m.group(1));
            }
            return names;
        } finally {
            Files.deleteIfExists(dump);
        }
    }

    /**
     * The 401 route on a plain (h2c) listener, or over TLS with this provider ({@code jdk}, {@code conscrypt}), with
     * this linger-timeout.
     */
    private static RunningGateway keyedGateway(TestOrigin origin, String listener, TestPki pki, Duration linger)
            throws Exception {
        List<String> server = new ArrayList<>(List.of("linger-timeout: " + linger.toMillis() + "ms"));
        if (pki != null) {
            TestPki.Issued cert = pki.issue("gateway", "localhost", "localhost");
            server.addAll(List.of("ssl:", "  provider: " + listener, "  certificate: " + cert.cert(),
                    "  certificate-private-key: " + cert.key()));
        }
        return RunningGateway.to(origin, server, KEYED.split("\n"));
    }

    /** h2c by prior knowledge, or h2 chosen by ALPN over TLS (the test CA's client) when {@code pki} is given. */
    private static Socket connect(int port, TestPki pki) throws IOException {
        if (pki == null) {
            return connect(port);
        }
        SSLSocket s = (SSLSocket) pki.clientContext(null).getSocketFactory()
                .createSocket(InetAddress.getLoopbackAddress(), port);
        SSLParameters p = s.getSSLParameters();
        p.setApplicationProtocols(new String[] {"h2"});
        s.setSSLParameters(p);
        s.setTcpNoDelay(true);
        s.startHandshake();
        assertThat(s.getApplicationProtocol()).as("ALPN").isEqualTo("h2");
        return s;
    }

    private static Socket connect(int port) throws IOException {
        Socket s = new Socket();
        s.connect(new InetSocketAddress("127.0.0.1", port), 5000);
        s.setTcpNoDelay(true);
        return s;
    }
}
