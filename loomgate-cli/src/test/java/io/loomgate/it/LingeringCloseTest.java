package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.RawClient;
import io.loomgate.testkit.RunningGateway;
import io.loomgate.testkit.TestOrigin;
import io.loomgate.threads.ConnectionExecutors;
import java.io.IOException;
import java.io.OutputStream;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * The bounds of the HTTP/1.1 side's lingering close and keep-alive drain against a client that keeps trickling the
 * body of a request the gateway answered early (a 401 from ApiKeyAuth): the connection ends within the bound
 * (LingeringClose: the listener's linger-timeout in all; the keep-alive drain: 5 s in all, or the linger-timeout if
 * shorter), however the bytes are spaced. The early answer reaching a client that writes its whole upload first is
 * in TrafficMatrixTest's early-answer cells.
 */
// Side by side (JUnit's parallel mode, enabled in the module's surefire configuration for classes that ask): each
// test starts its own origin and gateway and waits out a bound of the gateway; in a row they were 29 s. The bound is
// set short (LINGER) since session 57: the default 10 s linger and 5 s drain made this class 11 s of the suite.
@Execution(ExecutionMode.CONCURRENT)
class LingeringCloseTest {
    /** The gateway's linger-timeout in the tests that wait it out (the default is 10 s). */
    private static final Duration LINGER = Duration.ofSeconds(2);
    /**
     * The bound the tests hold the gateway to: LINGER, and room for a slow CI; under the default 10 s, so that a
     * gateway that ignored the setting (or had no total deadline, or let the drain read at the read timeout) fails.
     */
    private static final Duration CLOSED_WITHIN = Duration.ofSeconds(9);
    /** One byte a second, as the brief's hostile client: each read gets a byte well within the 5 s per read. */
    private static final Duration TRICKLE = Duration.ofSeconds(1);

    private static final String KEYED = """
            filters:
              - name: ApiKeyAuth
                args: { keys: { nobody: "sha256:%s" } }
            """.formatted("0".repeat(64));

    /**
     * A declared body larger than the keep-alive drain (256 KiB): after the 401 the connection closes, lingering,
     * and a client that sends a byte a second is cut at the linger's total deadline.
     */
    @Test
    void aClientTricklingAHugeBodyAfterAnEarlyAnswerIsClosedWithinTheLingerBound() throws Exception {
        try (TestOrigin origin = new TestOrigin(); RunningGateway gw = keyed(origin, LINGER);
             RawClient c = gw.raw()) {
            c.send("POST /up HTTP/1.1\r\nHost: gw\r\nContent-Length: 1000000000\r\n\r\n");
            c.send(new byte[300 * 1024]); // past the keep-alive drain: the connection is to close
            assertThat(c.read().status()).isEqualTo(401);
            long took = trickleUntilClosed(c);
            assertThat(Duration.ofNanos(took)).as("closed while the client trickled").isLessThan(CLOSED_WITHIN);
            assertThat(origin.requestCount()).isZero();
        }
    }

    /**
     * A declared body the keep-alive drain would read (100 KiB) dripped a byte a second after the 401: before the
     * drain had a total deadline, each read had the read timeout (60 s) and the thread was held for a day.
     */
    @Test
    void theKeepAliveDrainOfASlowDripEndsWithinItsBound() throws Exception {
        try (TestOrigin origin = new TestOrigin(); RunningGateway gw = keyed(origin, LINGER);
             RawClient c = gw.raw()) {
            c.send("POST /up HTTP/1.1\r\nHost: gw\r\nContent-Length: 102400\r\n\r\nx");
            assertThat(c.read().status()).isEqualTo(401);
            long took = trickleUntilClosed(c);
            assertThat(Duration.ofNanos(took)).as("closed while the client dripped").isLessThan(CLOSED_WITHIN);
            assertThat(origin.requestCount()).isZero();
        }
    }

    /**
     * A drain (shutdown) does not wait out a linger: the lingering connection is closed on drain's next pass and is not
     * reported as a request in flight (drain returns "clean").
     */
    @Test
    void aDrainClosesALingeringConnectionAtOnce() throws Exception {
        // The default linger (10 s): the drain must end it well before it would end by itself.
        try (TestOrigin origin = new TestOrigin(); RunningGateway gw = keyed(origin, null);
             RawClient c = gw.raw()) {
            c.send("POST /up HTTP/1.1\r\nHost: gw\r\nContent-Length: 1000000000\r\n\r\n");
            c.send(new byte[300 * 1024]);
            assertThat(c.read().status()).isEqualTo(401);
            OutputStream out = c.socket().getOutputStream();
            Thread trickler = ConnectionExecutors.startVirtual("trickler", () -> {
                try {
                    while (true) {
                        out.write('y');
                        out.flush();
                        Thread.sleep(Duration.ofMillis(200)); // the client's pace, not a wait for readiness
                    }
                } catch (IOException | InterruptedException e) {
                    // closed by the drain
                }
            });
            long t0 = System.nanoTime();
            boolean clean = gw.gateway().drain(Duration.ofSeconds(30));
            Duration took = Duration.ofNanos(System.nanoTime() - t0);
            assertThat(clean).as("a lingering connection is not a request in flight").isTrue();
            // The linger alone would last 10 s (the client keeps sending); the drain closes it on its next pass.
            assertThat(took).as("drain took").isLessThan(Duration.ofSeconds(8));
            trickler.join(Duration.ofSeconds(20));
            assertThat(trickler.isAlive()).as("the client saw the connection closed").isFalse();
        }
    }

    /**
     * A protocol error's answer (400 for a malformed field name, sent by the codec before any handler) reaches a
     * client that writes its whole 4 MiB upload before it reads: the connection lingers instead of resetting. Five
     * times: before the lingering close the upload's write failed with a reset or a broken pipe.
     */
    @Test
    void aProtocolErrorsAnswerReachesAClientThatWritesItsWholeUploadFirst() throws Exception {
        int length = 4 * 1024 * 1024;
        try (TestOrigin origin = new TestOrigin(); RunningGateway gw = RunningGateway.to(origin)) {
            for (int i = 0; i < 5; i++) {
                try (RawClient c = gw.raw()) {
                    c.send("POST /up HTTP/1.1\r\nHost: gw\r\nContent-Length: " + length
                            + "\r\nBad Field: x\r\n\r\n");
                    c.send(new byte[length]); // the whole upload first: a reset would fail this write
                    RawClient.Response r = c.read();
                    assertThat(r.status()).as("try %d", i).isEqualTo(400);
                    assertThat(c.isClosedByPeer()).as("try %d", i).isTrue();
                }
            }
            assertThat(origin.requestCount()).isZero();
        }
    }

    /** The 401 route, with this linger-timeout (null: the default, 10 s). */
    private static RunningGateway keyed(TestOrigin origin, Duration linger) throws Exception {
        return RunningGateway.to(origin, linger == null ? List.of() : List.of("linger-timeout: " + linger.toMillis()
                + "ms"), KEYED.split("\n"));
    }

    /**
     * Sends a byte a second on a virtual thread until a write fails, which is how the client learns that the gateway
     * closed (its half-close, a FIN, comes first: EOF alone is not the end); returns how long that took. The join's
     * timeout is the poll's deadline.
     */
    private static long trickleUntilClosed(RawClient c) throws Exception {
        long t0 = System.nanoTime();
        AtomicLong sent = new AtomicLong();
        OutputStream out = c.socket().getOutputStream();
        Thread trickler = ConnectionExecutors.startVirtual("trickler", () -> {
            try {
                while (true) {
                    out.write('y');
                    out.flush();
                    sent.incrementAndGet();
                    Thread.sleep(TRICKLE); // the hostile client's pace, not a wait for readiness
                }
            } catch (IOException | InterruptedException e) {
                // the gateway closed (a reset, then a broken pipe): the end this test waits for
            }
        });
        trickler.join(CLOSED_WITHIN.plusSeconds(10));
        if (trickler.isAlive()) {
            trickler.interrupt();
            throw new AssertionError("the connection was still open after " + CLOSED_WITHIN.plusSeconds(10) + " ("
                    + sent.get() + " bytes trickled)");
        }
        return System.nanoTime() - t0;
    }
}
