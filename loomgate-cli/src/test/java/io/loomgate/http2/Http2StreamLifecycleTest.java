package io.loomgate.http2;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.cli.Gateway;
import io.loomgate.proxy.ExchangeListener;
import io.loomgate.proxy.ExchangeView;
import io.loomgate.proxy.ProxyFailure;
import io.loomgate.server.ConnectionListener;
import io.loomgate.testkit.CountingServer;
import io.loomgate.testkit.RunningGateway;
import io.loomgate.testkit.TestOrigin;
import io.loomgate.testkit.TestOrigin.Reply;
import io.loomgate.upstream.PoolListener;
import io.loomgate.upstream.UpstreamPool;
import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * How streams end: cancelled by the client mid-upload or while the answer is awaited (the origin's connection kept
 * when its answer comes within bounds), answered while a neighbour's window is shut, drained.
 */
class Http2StreamLifecycleTest {

    @Test
    void aStreamResetMidUploadCancelsTheUpstreamRequest() throws Exception {
        try (CountingServer origin = new CountingServer();
             RunningGateway gw = RunningGateway.start(H2cGatewayYaml.yaml(), Map.of("ORIGIN",
                     "http://127.0.0.1:" + origin.port()));
             RawH2Client c = new RawH2Client(gw.port())) {
            c.headers(1, RawH2Client.request("POST", "/upload"), false);
            c.data(1, "first part of a long upload;".getBytes(StandardCharsets.US_ASCII), false);
            origin.awaitCount(1);
            Socket upstream = origin.accepted(0);
            upstream.setSoTimeout(15_000);
            InputStream in = upstream.getInputStream();
            StringBuilder seen = new StringBuilder();
            byte[] buf = new byte[4096];
            while (!seen.toString().contains("first part")) {
                int n = in.read(buf);
                assertThat(n).as("upstream got the start of the upload").isPositive();
                seen.append(new String(buf, 0, n, StandardCharsets.ISO_8859_1));
            }
            c.rst(1, Frames.CANCEL);
            // The gateway gives up the upstream request: its connection to the origin closes (EOF, not a timeout).
            int n;
            while ((n = in.read(buf)) > 0) {
                seen.append(new String(buf, 0, n, StandardCharsets.ISO_8859_1));
            }
            assertThat(n).isEqualTo(-1);
            assertThat(seen.toString()).doesNotContain("\r\n0\r\n\r\n"); // no last chunk: it did not look complete
        }
    }

    /**
     * A stream reset while the HTTP/1.1 origin is still answering (the whole request sent): the gateway lets the
     * answer come, drops it and keeps the connection, so the next request goes on it rather than on a new dial
     * (DrainAfterCancel; before it, the reset closed the connection: h2load's streams in flight at each run's end
     * cost W9 ~2,000 dials).
     */
    @Test
    void aStreamResetWhileItsAnswerIsAwaitedKeepsTheOriginsConnection() throws Exception {
        try (CountingServer origin = new CountingServer();
             RunningGateway gw = RunningGateway.start(H2cGatewayYaml.yaml(), Map.of("ORIGIN",
                     "http://127.0.0.1:" + origin.port()));
             RawH2Client c = new RawH2Client(gw.port())) {
            c.get(1, "/slow");
            Socket upstream = origin.accepted(0);
            upstream.setSoTimeout(15_000);
            readHead(upstream.getInputStream(), "GET /slow ");
            c.rst(1, Frames.CANCEL);
            c.ping(7); // its ACK comes after the reader has handled the reset (frames are read in order)
            c.await(f -> f.is(Frames.PING, 0) && (f.flags() & Frames.FLAG_ACK) != 0);
            upstream.getOutputStream().write(answer("dropped"));
            // The drain releases the connection once it has read the dropped answer, on its own thread: /next sent
            // before that finds no idle connection and dials a second one (run 75). So the release is waited for.
            UpstreamPool pool = gw.gateway().upstreams().get("main").pools().get(0);
            long end = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (pool.idleCount() != 1) {
                assertThat(System.nanoTime() - end).as("the drained connection back in the pool").isNegative();
                LockSupport.parkNanos(1_000_000); // a poll every millisecond, not a core spun on a loaded machine
            }
            c.get(3, "/next");
            readHead(upstream.getInputStream(), "GET /next ");
            upstream.getOutputStream().write(answer("kept"));
            assertThat(c.body(3)).isEqualTo("kept");
            assertThat(origin.count()).as("connections the gateway opened to the origin").isEqualTo(1);
        }
    }

    /** Bounded in time: an origin that does not answer within DrainAfterCancel.MAX_WAIT has its connection closed. */
    @Test
    void aResetStreamsOriginThatDoesNotAnswerHasItsConnectionClosed() throws Exception {
        try (CountingServer origin = new CountingServer();
             RunningGateway gw = RunningGateway.start(H2cGatewayYaml.yaml(), Map.of("ORIGIN",
                     "http://127.0.0.1:" + origin.port()));
             RawH2Client c = new RawH2Client(gw.port())) {
            c.get(1, "/never");
            Socket upstream = origin.accepted(0);
            upstream.setSoTimeout(15_000);
            InputStream in = upstream.getInputStream();
            readHead(in, "GET /never ");
            long reset = System.nanoTime();
            c.rst(1, Frames.CANCEL);
            assertThat(in.read()).as("the gateway closed the connection").isEqualTo(-1);
            assertThat(Duration.ofNanos(System.nanoTime() - reset)).as("not before the drain's wait")
                    .isGreaterThanOrEqualTo(Duration.ofMillis(900));
        }
    }

    /** Bounded in bytes: an answer longer than DrainAfterCancel.MAX_BODY is not read; its connection is closed. */
    @Test
    void aResetStreamsLongAnswerIsNotDrained() throws Exception {
        try (CountingServer origin = new CountingServer();
             RunningGateway gw = RunningGateway.start(H2cGatewayYaml.yaml(), Map.of("ORIGIN",
                     "http://127.0.0.1:" + origin.port()));
             RawH2Client c = new RawH2Client(gw.port())) {
            c.get(1, "/long");
            Socket upstream = origin.accepted(0);
            upstream.setSoTimeout(15_000);
            InputStream in = upstream.getInputStream();
            readHead(in, "GET /long ");
            c.rst(1, Frames.CANCEL);
            c.ping(7);
            c.await(f -> f.is(Frames.PING, 0) && (f.flags() & Frames.FLAG_ACK) != 0);
            upstream.getOutputStream().write(("HTTP/1.1 200 OK\r\nContent-Length: " + (1 << 20) + "\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            upstream.getOutputStream().flush();
            assertThat(in.read()).as("the gateway closed the connection").isEqualTo(-1);
        }
    }

    /** Reads the origin's side up to the end of a request head, which must start with {@code start}. */
    private static void readHead(InputStream in, String start) throws java.io.IOException {
        StringBuilder seen = new StringBuilder();
        while (seen.indexOf("\r\n\r\n") < 0) {
            int b = in.read();
            assertThat(b).as("the request head so far: " + seen).isNotNegative();
            seen.append((char) b);
        }
        assertThat(seen.toString()).startsWith(start);
    }

    private static byte[] answer(String body) {
        return ("HTTP/1.1 200 OK\r\nContent-Length: " + body.length() + "\r\n\r\n" + body)
                .getBytes(StandardCharsets.US_ASCII);
    }

    /** 8 KiB, then 16 KiB: the gateway's relay reads 8 KiB first, then one whole 16 KiB frame, the body's end. */
    /** Exchanges per test of clients that close at the body's end: the race showed in 20-33 of 200. */
    private static final int ROUNDS = 200;
    private static final int FIRST = 8 * 1024;
    private static final int LAST = 16 * 1024;

    /**
     * curl 7.88 takes an HTTP/2 answer as complete once it has content-length bytes and closes its connection at
     * once, without waiting for END_STREAM (clean-clone run 20: TracingMatrixIT's H2C → h2c 64 KiB echo, the client
     * had its 200 and the whole body, the exchange was recorded client_aborted). The last bytes of a body of known
     * length must therefore leave in the frame that ends the stream: before, a last piece of a whole frame went out
     * alone and the END_STREAM after it in an empty DATA, once the relay had read the origin's end; a client that
     * closed in between made that frame fail (or cancelled the attempt still reading the origin's end), and the
     * exchange the client had whole was recorded client_aborted. Here the origin's end comes 300 ms after its last
     * byte, which makes that window certain: the client must get the last bytes with END_STREAM, and the exchange
     * must be recorded answered (the span, the access log and the metrics all read that one outcome).
     */
    @Test
    void aClientThatClosesOnceItHasTheBodyLeavesAnAnsweredExchange() throws Exception {
        Outcomes outcomes = new Outcomes();
        try (HostileH2Origin origin = new HostileH2Origin(null)
                .on("lateend", (r, c) -> {
                    answerInTwo(r, c, false);
                    Thread.sleep(300); // this cell's shape: the origin's end comes after its last byte
                    c.frame(Frames.DATA, Frames.FLAG_END_STREAM, r.stream(), new byte[0]);
                });
             RunningGateway gw = RunningGateway.start(H2cGatewayYaml.yaml(), Map.of("ORIGIN", origin.uri()),
                     outcomes.observers())) {
            Taken taken = takeBodyAndClose(gw.port(), "/x/lateend/1");
            assertThat(taken.bytes()).isEqualTo(FIRST + LAST);
            assertThat(outcomes.await("/x/lateend/1") + ", last bytes with END_STREAM: "
                    + taken.endStreamWithLastBytes()).isEqualTo("200 answered, last bytes with END_STREAM: true");
        }
    }

    /**
     * The same client against an origin that ends its answer at once (END_STREAM on its last DATA), many times: the
     * race of run 20 as it came, without a delay anywhere. Every exchange is recorded answered.
     */
    @Test
    void clientsThatCloseOnceTheyHaveTheBodyAreNeverRecordedAborted() throws Exception {
        Outcomes outcomes = new Outcomes();
        try (HostileH2Origin origin = new HostileH2Origin(null).on("whole", (r, c) -> answerInTwo(r, c, true));
             RunningGateway gw = RunningGateway.start(H2cGatewayYaml.yaml(), Map.of("ORIGIN", origin.uri()),
                     outcomes.observers())) {
            everyExchangeAnsweredWhole(gw.port(), "/x/whole/", ROUNDS, outcomes);
        }
    }

    /**
     * The same clients through an HTTP/1.1 origin: every exchange recorded answered, and the origin's connection, whose
     * answer was whole, kept for the next (a client that goes away once its stream has ended cancels nothing).
     */
    @Test
    void clientsThatCloseAtEndStreamLeaveTheOriginsConnectionPooled() throws Exception {
        Outcomes outcomes = new Outcomes();
        try (TestOrigin origin = new TestOrigin().fallback(r -> Reply.ok("x".repeat(FIRST + LAST)));
             RunningGateway gw = RunningGateway.start(H2cGatewayYaml.yaml(), Map.of("ORIGIN", origin.uri()),
                     outcomes.observers())) {
            everyExchangeAnsweredWhole(gw.port(), "/x/h1/", ROUNDS, outcomes);
            assertThat(origin.connectionCount()).as("connections to the origin for " + ROUNDS + " exchanges, one "
                    + "after the other").isEqualTo(1);
        }
    }

    /** Clients that close once they have the body: every exchange answered, its last bytes ending the stream. */
    private static void everyExchangeAnsweredWhole(int port, String prefix, int rounds, Outcomes outcomes)
            throws Exception {
        List<String> wrong = new ArrayList<>();
        for (int i = 0; i < rounds; i++) {
            String path = prefix + i;
            Taken taken = takeBodyAndClose(port, path);
            assertThat(taken.bytes()).isEqualTo(FIRST + LAST);
            String outcome = outcomes.await(path);
            if (!outcome.equals("200 answered") || !taken.endStreamWithLastBytes()) {
                wrong.add(path + ": " + outcome + (taken.endStreamWithLastBytes() ? ""
                        : ", last bytes without END_STREAM"));
            }
        }
        assertThat(wrong).as("of " + rounds + " exchanges whose client had the whole body").isEmpty();
    }

    /** HEADERS with content-length, then 8 KiB and 16 KiB of DATA, the last with END_STREAM if asked. */
    private static void answerInTwo(HostileH2Origin.Req r, HostileH2Origin.Conn c, boolean end) throws Exception {
        c.head(r.stream(), false, ":status", "200", "content-length", Integer.toString(FIRST + LAST));
        c.frame(Frames.DATA, 0, r.stream(), new byte[FIRST]);
        c.frame(Frames.DATA, end ? Frames.FLAG_END_STREAM : 0, r.stream(), new byte[LAST]);
    }

    /** What a client that stops at content-length saw: the body's bytes, and whether END_STREAM came with the last. */
    private record Taken(int bytes, boolean endStreamWithLastBytes) {
    }

    /** A GET on a connection of its own, read until content-length bytes came; then the socket is closed at once. */
    private static Taken takeBodyAndClose(int port, String path) throws Exception {
        try (RawH2Client c = new RawH2Client(port)) {
            c.get(1, path);
            RawH2Client.Frame head = c.await(f -> f.is(Frames.HEADERS, 1));
            assertThat(head).as("the response head").isNotNull();
            long length = Long.parseLong(c.fields(head).get("content-length"));
            int got = 0;
            while (got < length) {
                RawH2Client.Frame f = c.await(x -> x.stream() == 1
                        && (x.type() == Frames.DATA || x.type() == Frames.RST_STREAM));
                assertThat(f).as("DATA after " + got + " bytes").isNotNull();
                assertThat(f.type()).as("after " + got + " bytes").isEqualTo(Frames.DATA);
                got += f.payload().length;
                if (got >= length) {
                    return new Taken(got, f.endStream());
                }
            }
            return new Taken(got, false);
        } // closed here, as curl does once it has content-length bytes
    }

    /** Each exchange's outcome as every observer reads it: its status and its failure's kind, by target. */
    private static final class Outcomes implements ExchangeListener {
        private final Map<String, String> byTarget = new ConcurrentHashMap<>();

        Gateway.Observers observers() {
            return new Gateway.Observers(this, PoolListener.NOOP, ConnectionListener.NOOP);
        }

        @Override
        public void exchangeEnd(ExchangeView exchange) {
            byTarget.put(exchange.target(), exchange.status() + " answered");
        }

        @Override
        public void exchangeFailed(ExchangeView exchange) {
            ProxyFailure f = exchange.failure();
            byTarget.put(exchange.target(), exchange.status() + " " + (f == null ? "failed" : f.kind().name().toLowerCase(java.util.Locale.ROOT)));
        }

        /** The outcome of the exchange for {@code target}, waiting up to 10 s for it to be reported. */
        String await(String target) throws InterruptedException {
            long end = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            String o;
            while ((o = byTarget.get(target)) == null && System.nanoTime() - end < 0) {
                Thread.sleep(5); // polled with a deadline: the stream's thread reports after the client is gone
            }
            return o == null ? "not reported" : o;
        }
    }

    @Test
    void aStreamWhoseClientStopsReadingDoesNotStallTheOthers() throws Exception {
        try (TestOrigin origin = new TestOrigin();
             RunningGateway gw = RunningGateway.start(H2cGatewayYaml.yaml(), Map.of("ORIGIN", origin.uri()));
             RawH2Client c = new RawH2Client(gw.port())) {
            byte[] mib = new byte[1 << 20];
            origin.enqueue(new Reply("HTTP/1.1 200 OK", List.of("Content-Length: " + (8 << 20)),
                    java.util.Collections.nCopies(8, mib), Duration.ZERO, Duration.ZERO, TestOrigin.Effect.NONE));
            c.get(1, "/big"); // never given more than the initial 64 KiB window: it stalls at once
            assertThat(c.fields(c.await(f -> f.is(Frames.HEADERS, 1)))).containsEntry(":status", "200");
            // Open the connection window wide: only stream 1's own window holds it back.
            c.windowUpdate(0, 64 << 20);
            for (int stream = 3; stream <= 21; stream += 2) {
                c.get(stream, "/small");
                assertThat(c.body(stream)).isEqualTo("hello from origin");
            }
        }
    }

    @Test
    void drainSendsGoAwayAndStreamsInFlightFinish() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        try (TestOrigin origin = new TestOrigin();
             RunningGateway gw = RunningGateway.start(H2cGatewayYaml.yaml(), Map.of("ORIGIN", origin.uri()));
             RawH2Client c = new RawH2Client(gw.port())) {
            origin.enqueue(Reply.raw("HTTP/1.1 200 OK", List.of("Content-Length: 9"), "in", "-flight")
                    .gatedBy(release));
            c.get(1, "/slow");
            origin.takeRequest();
            AtomicBoolean clean = new AtomicBoolean();
            Thread drain = Thread.ofVirtual().start(() -> {
                try {
                    clean.set(gw.gateway().listener().drain(Duration.ofSeconds(20)));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            RawH2Client.Frame goAway = c.awaitGoAway();
            assertThat(goAway).isNotNull();
            assertThat(goAway.errorCode()).isEqualTo(Frames.NO_ERROR);
            assertThat(goAway.payload()[3]).as("last stream id").isEqualTo((byte) 1);
            release.countDown();
            assertThat(c.body(1)).isEqualTo("in-flight");
            assertThat(c.isClosedByPeer()).isTrue();
            c.close(); // as a real client does once it has seen GOAWAY and the end of the stream
            drain.join(Duration.ofSeconds(20));
            assertThat(clean).isTrue();
        }
    }
}
