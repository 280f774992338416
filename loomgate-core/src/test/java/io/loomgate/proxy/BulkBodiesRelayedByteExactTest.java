package io.loomgate.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.http.HttpLimits;
import io.loomgate.testkit.RawClient;
import io.loomgate.testkit.TestOrigin;
import io.loomgate.testkit.TestOrigin.Effect;
import io.loomgate.testkit.TestOrigin.Reply;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/**
 * Bodies through the proxy arrive byte for byte, in both directions and every framing, whether their pieces go
 * through direct buffers (bulk, plain sockets on both sides: {@link DirectBuffers}) or the heap (chunked framing, slow
 * senders); a slow reader and a slow writer change nothing; a stalled origin still meets its body read deadline in
 * the middle of a bulk transfer; and a client that leaves mid-body ends the upstream attempt.
 */
class BulkBodiesRelayedByteExactTest {
    private static final long WAIT_NANOS = TimeUnit.SECONDS.toNanos(30);

    private static byte[] pattern(int length, int seed) {
        byte[] b = new byte[length];
        for (int i = 0; i < length; i++) {
            b[i] = (byte) (i * 31 + (i >>> 12) + seed);
        }
        return b;
    }

    private static Reply fixed(byte[]... pieces) {
        long length = 0;
        for (byte[] p : pieces) {
            length += p.length;
        }
        return new Reply("HTTP/1.1 200 OK", List.of("Content-Length: " + length), List.of(pieces), Duration.ZERO,
                Duration.ZERO, Effect.NONE);
    }

    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        long end = System.nanoTime() + WAIT_NANOS;
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime() - end).as(what).isNegative();
            Thread.sleep(10);
        }
    }

    @Test
    void aLargeFixedLengthDownloadArrivesWholeThroughDirectBuffersAndTheConnectionsStayReusable() throws Exception {
        byte[] body = pattern(8 * 1024 * 1024 + 13, 1);
        try (TestOrigin origin = new TestOrigin();
             ProxyRig rig = new ProxyRig("big", "/", origin.port());
             RawClient client = new RawClient(rig.port())) {
            origin.enqueue(fixed(body), fixed(pattern(3 * 1024 * 1024, 2)));
            long lentBefore = DirectBuffers.SHARED.lent();

            RawClient.Response first = client.get("/a");
            assertThat(first.status()).isEqualTo(200);
            assertThat(first.body()).as("every byte, in order").isEqualTo(body);
            assertThat(DirectBuffers.SHARED.lent()).as("bulk pieces went through direct buffers")
                    .isGreaterThan(lentBefore);

            RawClient.Response second = client.get("/b");
            assertThat(second.body()).isEqualTo(pattern(3 * 1024 * 1024, 2));
            assertThat(origin.connectionCount()).as("the upstream connection was complete and reused").isEqualTo(1);
            assertThat(DirectBuffers.SHARED.allocated()).isLessThanOrEqualTo(DirectBuffers.SHARED.count());
        }
    }

    @Test
    void aSlowReaderGetsEveryByte() throws Exception {
        byte[] body = pattern(6 * 1024 * 1024, 3);
        try (TestOrigin origin = new TestOrigin();
             ProxyRig rig = new ProxyRig("big", "/", origin.port());
             Socket s = new Socket()) {
            origin.enqueue(fixed(body));
            s.setReceiveBufferSize(16 * 1024); // the gateway's writes fill this and wait for the reader
            s.connect(new java.net.InetSocketAddress(InetAddress.getLoopbackAddress(), rig.port()));
            s.setSoTimeout(30_000);
            s.getOutputStream().write("GET /slow HTTP/1.1\r\nHost: t\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            InputStream in = new BufferedInputStream(s.getInputStream(), 4096);
            assertThat(readHead(in)).startsWith("HTTP/1.1 200");
            ByteArrayOutputStream got = new ByteArrayOutputStream();
            byte[] piece = new byte[8 * 1024];
            while (got.size() < body.length) {
                int n = in.read(piece, 0, Math.min(piece.length, body.length - got.size()));
                assertThat(n).as("the body ended early").isPositive();
                got.write(piece, 0, n);
                if (got.size() % (512 * 1024) < n) {
                    Thread.sleep(20); // a reader that falls behind now and then
                }
            }
            assertThat(got.toByteArray()).isEqualTo(body);
        }
    }

    @Test
    void aSlowWriterSwitchingBetweenBulkAndTricklesIsRelayedWhole() throws Exception {
        // Bulk pieces (direct buffers) and trickles after pauses longer than a slow read (heap buffers) in turn.
        List<byte[]> pieces = List.of(pattern(1024 * 1024, 4), pattern(100, 5), pattern(768 * 1024, 6),
                pattern(7, 7), pattern(2 * 1024 * 1024, 8), pattern(1, 9), pattern(300 * 1024, 10));
        ByteArrayOutputStream whole = new ByteArrayOutputStream();
        for (byte[] p : pieces) {
            whole.write(p);
        }
        try (TestOrigin origin = new TestOrigin();
             ProxyRig rig = new ProxyRig("big", "/", origin.port());
             RawClient client = new RawClient(rig.port())) {
            origin.enqueue(fixed(pieces.toArray(byte[][]::new)).piecesEvery(Duration.ofMillis(80)));
            RawClient.Response r = client.get("/trickle");
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.body()).isEqualTo(whole.toByteArray());
        }
    }

    @Test
    void aCloseDelimitedBodyReachesAnHttp10ClientWhole() throws Exception {
        byte[] body = pattern(5 * 1024 * 1024 + 1, 11);
        try (TestOrigin origin = new TestOrigin();
             ProxyRig rig = new ProxyRig("big", "/", origin.port());
             RawClient client = new RawClient(rig.port())) {
            origin.enqueue(new Reply("HTTP/1.1 200 OK", List.of("Connection: close"), List.of(body), Duration.ZERO,
                    Duration.ZERO, Effect.CLOSE_AFTER_RESPONSE));
            RawClient.Response r = client.send("GET /old HTTP/1.0\r\nHost: t\r\n\r\n").read();
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.header("Content-Length")).isNull();
            assertThat(r.body()).isEqualTo(body);
        }
    }

    @Test
    void aLargeChunkedDownloadArrivesWholeWithItsFraming() throws Exception {
        byte[] body = pattern(4 * 1024 * 1024 + 5, 12);
        try (TestOrigin origin = new TestOrigin();
             ProxyRig rig = new ProxyRig("big", "/", origin.port());
             RawClient client = new RawClient(rig.port())) {
            origin.enqueue(new Reply("HTTP/1.1 200 OK", List.of("Transfer-Encoding: chunked"), chunked(body),
                    Duration.ZERO, Duration.ZERO, Effect.NONE));
            RawClient.Response r = client.get("/chunked");
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.body()).isEqualTo(body);
            assertThat(client.get("/next").status()).as("the connection survives").isEqualTo(200);
        }
    }

    @Test
    void largeUploadsArriveWholeFixedAndChunked() throws Exception {
        byte[] fixedBody = pattern(6 * 1024 * 1024 + 3, 13);
        byte[] chunkedBody = pattern(5 * 1024 * 1024 + 9, 14);
        try (TestOrigin origin = new TestOrigin();
             ProxyRig rig = new ProxyRig("big", "/", origin.port());
             RawClient client = new RawClient(rig.port())) {
            client.send(("POST /up HTTP/1.1\r\nHost: t\r\nContent-Length: " + fixedBody.length + "\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            client.send(fixedBody);
            assertThat(client.read().status()).isEqualTo(200);
            assertThat(origin.takeRequest().body()).isEqualTo(fixedBody);

            client.send("POST /up HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n"
                    .getBytes(StandardCharsets.US_ASCII));
            for (byte[] piece : chunked(chunkedBody)) {
                client.send(piece);
            }
            assertThat(client.read().status()).isEqualTo(200);
            TestOrigin.Recorded r = origin.takeRequest();
            assertThat(r.body()).isEqualTo(chunkedBody);
        }
    }

    @Test
    void anOriginStallingInTheMiddleOfABulkBodyMeetsTheBodyReadDeadline() throws Exception {
        byte[] first = pattern(2 * 1024 * 1024, 15);
        CountDownLatch never = new CountDownLatch(1);
        ProxySettings settings = new ProxySettings(List.of(), Duration.ofMillis(500), HttpLimits.DEFAULTS);
        try (TestOrigin origin = new TestOrigin();
             ProxyRig rig = new ProxyRig(settings, "big", "/", origin.port());
             Socket s = new Socket(InetAddress.getLoopbackAddress(), rig.port())) {
            // 2 MiB, then nothing: the origin would give up only after 10 s (the latch is never opened).
            origin.enqueue(fixed(first, pattern(1024, 16)).gatedBy(never));
            s.setSoTimeout(30_000);
            s.getOutputStream().write("GET /stall HTTP/1.1\r\nHost: t\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            InputStream in = new BufferedInputStream(s.getInputStream());
            assertThat(readHead(in)).startsWith("HTTP/1.1 200");
            long start = System.nanoTime();
            byte[] got = readUntilEnd(in);
            long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);

            // What came before the stall, then the cut (an abort may reset away bytes the client had not read yet).
            assertThat(got.length).isLessThanOrEqualTo(first.length);
            assertThat(got).isEqualTo(java.util.Arrays.copyOf(first, got.length));
            assertThat(tookMillis).as("cut by the 500 ms body read deadline, not by the origin giving up")
                    .isLessThan(9_000);
            await(() -> rig.events.size() == 1, "the exchange is reported");
            assertThat(rig.events.getFirst()).startsWith("failed big");
            // The origin may go on now: it sends the rest and waits for the next request on that connection, which
            // only the gateway's close ends (a connection the gateway kept would stay open). Not waiting here for
            // the origin to give up on the gate by itself saves its 10 s.
            never.countDown();
            await(() -> origin.openConnectionCount() == 0, "the upstream connection is closed");
        }
    }

    @Test
    void aClientLeavingInTheMiddleOfABulkBodyEndsTheUpstreamAttempt() throws Exception {
        AtomicBoolean originWriteFailed = new AtomicBoolean();
        AtomicLong originSent = new AtomicLong();
        try (ServerSocket originServer = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
             ProxyRig rig = new ProxyRig("big", "/", originServer.getLocalPort())) {
            Thread.ofVirtual().start(() -> endlessOrigin(originServer, originSent, originWriteFailed));
            try (Socket s = new Socket(InetAddress.getLoopbackAddress(), rig.port())) {
                s.setSoTimeout(30_000);
                s.getOutputStream().write("GET /huge HTTP/1.1\r\nHost: t\r\n\r\n"
                        .getBytes(StandardCharsets.US_ASCII));
                InputStream in = new BufferedInputStream(s.getInputStream());
                assertThat(readHead(in)).startsWith("HTTP/1.1 200");
                assertThat(in.readNBytes(4 * 1024 * 1024)).hasSize(4 * 1024 * 1024);
            } // the client leaves, 4 MiB into a 1 GiB body
            await(originWriteFailed::get, "the gateway closed the upstream connection");
            assertThat(originSent.get()).isLessThan(1L << 30);
            await(() -> rig.events.size() == 1, "the exchange is reported");
            assertThat(rig.events.getFirst()).startsWith("failed big");
            assertThat(rig.upstreams.pools()).allSatisfy(p -> assertThat(p.inUseCount()).isZero());
        }
    }

    /** Answers one request with a 1 GiB body, writing until the gateway stops taking it. */
    private static void endlessOrigin(ServerSocket server, AtomicLong sent, AtomicBoolean writeFailed) {
        try (Socket s = server.accept()) {
            InputStream in = new BufferedInputStream(s.getInputStream());
            readHead(in);
            OutputStream out = s.getOutputStream();
            out.write(("HTTP/1.1 200 OK\r\nContent-Length: " + (1L << 30) + "\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            byte[] piece = pattern(256 * 1024, 17);
            try {
                while (sent.get() < (1L << 30)) {
                    out.write(piece);
                    sent.addAndGet(piece.length);
                }
            } catch (IOException e) {
                writeFailed.set(true);
            }
        } catch (IOException e) {
            writeFailed.set(true);
        }
    }

    /** A message head, through its empty line. */
    private static String readHead(InputStream in) throws IOException {
        StringBuilder head = new StringBuilder();
        while (!head.toString().endsWith("\r\n\r\n")) {
            int c = in.read();
            if (c < 0) {
                throw new java.io.EOFException("ended inside a head: " + head);
            }
            head.append((char) c);
        }
        return head.toString();
    }

    private static byte[] readUntilEnd(InputStream in) throws IOException {
        ByteArrayOutputStream got = new ByteArrayOutputStream();
        byte[] piece = new byte[64 * 1024];
        try {
            for (int n; (n = in.read(piece)) > 0; ) {
                got.write(piece, 0, n);
            }
        } catch (java.net.SocketException e) {
            // reset by the gateway's abort: the end as well
        }
        return got.toByteArray();
    }

    /** The body in chunks of up to 100,000 bytes, then the last chunk. */
    private static List<byte[]> chunked(byte[] body) throws IOException {
        List<byte[]> out = new ArrayList<>();
        for (int at = 0; at < body.length; at += 100_000) {
            int n = Math.min(100_000, body.length - at);
            ByteArrayOutputStream c = new ByteArrayOutputStream();
            c.write((Integer.toHexString(n) + "\r\n").getBytes(StandardCharsets.US_ASCII));
            c.write(body, at, n);
            c.write("\r\n".getBytes(StandardCharsets.US_ASCII));
            out.add(c.toByteArray());
        }
        out.add("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        return out;
    }
}
