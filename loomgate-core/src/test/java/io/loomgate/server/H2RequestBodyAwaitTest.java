package io.loomgate.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.http1.BodyInputStream;
import io.loomgate.http2.Http2Settings;
import io.loomgate.threads.ConnectionExecutors;
import io.loomgate.threads.ThreadModel;
import io.loomgate.threads.Watchdog;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * An HTTP/2 request body's {@link BodyInputStream#awaitData()} waits for the client, holding no buffer: for its next
 * DATA frame, or for the END_STREAM that follows the last byte in a frame of its own (nghttp2's way), after which it
 * answers false. Before session 57 it answered "not complete" at once, so a relay that had read the whole body
 * allocated a buffer only to read the end (h2alloc). Real sockets, the listener's h2c, a raw client.
 */
class H2RequestBodyAwaitTest {
    private static final Http2Settings H2C = Http2Settings.DISABLED.withEnabled(true);

    private static Listener start(ExchangeHandler handler) throws IOException {
        ListenerSettings s = RunningListener.settings(Duration.ofSeconds(10), Duration.ofSeconds(60),
                Duration.ofSeconds(30)).withHttp2(H2C);
        return new Listener(s, null, handler, ConnectionExecutors.create(ThreadModel.VIRTUAL, "h2-await-test"),
                ConnectionListener.NOOP, Watchdog.shared(), null).start();
    }

    /** A POST's header block without a body length; {@code extra}: more encoded fields. */
    private static byte[] post(byte[] extra) {
        byte[] block = H2cWire.get("/p", extra);
        block[0] = (byte) 0x83; // :method POST (static index 3) instead of GET's 2
        return block;
    }

    @Test
    void theWaitAfterTheLastByteEndsWithTheStreamsEnd() throws Exception {
        CountDownLatch bodyRead = new CountDownLatch(1);
        AtomicBoolean endSent = new AtomicBoolean();
        CompletableFuture<String> seen = new CompletableFuture<>();
        ExchangeHandler handler = ex -> {
            BodyInputStream body = ex.requestBody();
            byte[] b = new byte[5];
            int n = 0;
            while (n < 5) {
                n += body.read(b, n, 5 - n);
            }
            bodyRead.countDown();
            boolean more = body.awaitData();
            // what the wait answered, and whether the client's END_STREAM had been sent when it did
            seen.complete(more + " after end " + endSent.get() + ", complete " + body.isComplete());
            ex.respond(200, new String(b, StandardCharsets.US_ASCII));
        };
        try (Listener l = start(handler); H2cWire c = new H2cWire(l.port())) {
            c.send(H2cWire.frame(H2cWire.HEADERS, H2cWire.END_HEADERS, 1, post(new byte[0])));
            c.send(H2cWire.frame(H2cWire.DATA, 0, 1, "hello".getBytes(StandardCharsets.US_ASCII)));
            assertThat(bodyRead.await(30, TimeUnit.SECONDS)).isTrue();
            assertThat(seen).as("the wait returned before the stream's end").isNotDone();
            endSent.set(true);
            c.send(H2cWire.frame(H2cWire.DATA, H2cWire.END_STREAM, 1, new byte[0]));
            assertThat(seen.get(30, TimeUnit.SECONDS)).isEqualTo("false after end true, complete true");
            assertThat(c.next(H2cWire.DATA).text()).isEqualTo("hello");
        }
    }

    @Test
    void aWaitFirstSendsTheContinueTheClientWaitsFor() throws Exception {
        CompletableFuture<Boolean> awaited = new CompletableFuture<>();
        ExchangeHandler handler = ex -> {
            BodyInputStream body = ex.requestBody();
            awaited.complete(body.awaitData()); // before any read: the wait itself must send 100 Continue
            ex.respond(200, new String(body.readAllBytes(), StandardCharsets.US_ASCII));
        };
        try (Listener l = start(handler); H2cWire c = new H2cWire(l.port())) {
            c.send(H2cWire.frame(H2cWire.HEADERS, H2cWire.END_HEADERS, 1,
                    post(H2cWire.indexedLiteral("expect", "100-continue"))));
            H2cWire.Frame interim = c.next(H2cWire.HEADERS); // the client sends nothing until it comes
            assertThat(interim.stream()).isEqualTo(1);
            assertThat(interim.flags() & H2cWire.END_STREAM).isZero();
            c.send(H2cWire.frame(H2cWire.DATA, H2cWire.END_STREAM, 1, "body".getBytes(StandardCharsets.US_ASCII)));
            assertThat(awaited.get(30, TimeUnit.SECONDS)).isTrue();
            assertThat(c.next(H2cWire.DATA).text()).isEqualTo("body");
        }
    }
}
