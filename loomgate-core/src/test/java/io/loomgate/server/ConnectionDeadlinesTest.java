package io.loomgate.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.ManualClock;
import io.loomgate.testkit.RawClient;
import io.loomgate.threads.Watchdog;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The deadlines of a client connection (idle keep-alive, request head, a client that stops reading), on real
 * sockets, with watchdogs whose clock the test drives: nothing here waits for real time to pass.
 */
class ConnectionDeadlinesTest {
    private static final Duration HEADER = Duration.ofSeconds(10);
    private static final Duration READ = Duration.ofSeconds(60);
    private static final Duration LONG = Duration.ofDays(365);

    private final ManualClock clock = new ManualClock();
    private final Watchdog reads = Watchdog.driven(clock);
    private final Watchdog writes = Watchdog.driven(clock);

    /** Moves the driven clock a step at a time and checks, until the watchdog expires something. */
    private static void advanceUntilExpired(ManualClock clock, Watchdog watchdog, Duration step) {
        RunningListener.await("a deadline expired", () -> {
            clock.advance(step);
            return watchdog.check() > 0;
        });
    }

    @Test
    void anIdleKeepAliveConnectionIsClosedQuietlyAfterTheIdleTimeout() throws IOException {
        ListenerSettings s = RunningListener.settings(LONG, Duration.ofSeconds(60), LONG);
        try (RunningListener l = RunningListener.start(s, ex -> ex.respond(200, "hi"), ConnectionListener.NOOP,
                reads, writes);
             RawClient client = new RawClient(l.port())) {
            client.send("GET / HTTP/1.1\r\nHost: t\r\n\r\n");
            assertThat(client.read().bodyText()).isEqualTo("hi");
            // The idle wait is the read watchdog's for the hand-off delay, then the idle poller's, on the same clock.
            RunningListener.await("closed by the idle timeout", () -> {
                clock.advance(Duration.ofSeconds(61));
                return reads.check() > 0 || l.listener.openConnections() == 0;
            });
            assertThat(client.isClosedByPeer()).as("closed without a response").isTrue();
            RunningListener.await("connection gone", () -> l.listener.openConnections() == 0);
        }
    }

    @Test
    void aHeadNotCompleteWithinTheHeaderTimeoutGets408() throws IOException {
        // Idle and read limits far away: only the head's deadline can expire while the clock is stepped.
        ListenerSettings s = RunningListener.settings(HEADER, LONG, LONG);
        try (RunningListener l = RunningListener.start(s, ex -> ex.respond(200, "never"), ConnectionListener.NOOP,
                reads, writes);
             RawClient client = new RawClient(l.port())) {
            client.send("GET / HTTP/1.1\r\nHost: t\r\n");
            advanceUntilExpiredOrHeadRefused(l, s);
            RawClient.Response r = client.read();
            assertThat(r.status()).isEqualTo(408);
            assertThat(r.header("Connection")).isEqualTo("close");
            assertThat(r.bodyText()).contains("request head not received within 10000 ms");
        }
    }

    /** The head deadline is enforced either by the watchdog's cut or by the check before the next read. */
    private void advanceUntilExpiredOrHeadRefused(RunningListener l, ListenerSettings s) {
        // Accepted first (else "no connection open" would hold before the accept), then refused and closed.
        RunningListener.await("connection accepted", () -> l.listener.openConnections() == 1);
        RunningListener.await("head deadline enforced", () -> {
            clock.advance(s.headerTimeout().plusSeconds(1));
            reads.check();
            return l.listener.openConnections() == 0;
        });
    }

    @Test
    void aClientThatStopsReadingIsAbortedAfterTheReadTimeout() throws Exception {
        ListenerSettings s = RunningListener.settings(HEADER, LONG, READ);
        CompletableFuture<Throwable> handlerFailure = new CompletableFuture<>();
        CompletableFuture<Void> handling = new CompletableFuture<>();
        ExchangeHandler endless = ex -> {
            handling.complete(null);
            try {
                ServerExchange.ResponseBody body = ex.sendHead(io.loomgate.http.ResponseHead.of(200),
                        io.loomgate.http1.BodyFraming.CHUNKED);
                byte[] chunk = new byte[64 * 1024];
                while (true) {
                    body.write(chunk);
                }
            } catch (IOException | RuntimeException e) {
                handlerFailure.complete(e);
                throw e;
            }
        };
        try (RunningListener l = RunningListener.start(s, endless, ConnectionListener.NOOP, reads, writes);
             RawClient client = new RawClient(l.port())) {
            client.send("GET /forever HTTP/1.1\r\nHost: t\r\n\r\n");
            // The head read first: a clock moved while it is still being read would expire its deadline (408).
            handling.get(30, TimeUnit.SECONDS);
            // The client reads nothing: the socket buffers fill and the handler's write blocks.
            advanceUntilExpired(clock, writes, READ.plusSeconds(1));
            assertThat(handlerFailure.get(30, TimeUnit.SECONDS)).isInstanceOf(IOException.class);
            RunningListener.await("connection aborted", () -> l.listener.openConnections() == 0);
        }
    }

    @Test
    void closedConnectionsLeaveNoDeadlinesBehind() throws IOException {
        ListenerSettings s = RunningListener.settings(HEADER, LONG, READ);
        try (RunningListener l = RunningListener.start(s, ex -> ex.respond(200, "ok"), ConnectionListener.NOOP,
                reads, writes)) {
            for (int i = 0; i < 3; i++) {
                try (RawClient client = new RawClient(l.port())) {
                    client.send("GET / HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n");
                    assertThat(client.read().status()).isEqualTo(200);
                }
            }
            RunningListener.await("connections gone", () -> l.listener.openConnections() == 0);
            assertThat(reads.watched()).isZero();
            assertThat(writes.watched()).isZero();
        }
    }
}
