package io.loomgate.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.threads.ConnectionExecutors;
import io.loomgate.threads.ThreadModel;
import io.loomgate.threads.Watchdog;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * Drain while clients are still connecting: every connection the kernel accepted for the listener is answered or
 * closed, none is left established with nobody reading it. Drain used to interrupt the accept thread; an accept that
 * completed just as the interrupt landed threw {@code ClosedByInterruptException} instead of returning its socket, and
 * that socket was lost: open, unread, never counted, its client waiting for its own read timeout (60 s in
 * ParkedConnectionChurnTest's shutdown test, about once in a hundred drains there). The window is a few microseconds,
 * so this drains many listeners, each while a few clients connect as fast as they can.
 */
class DrainWhileAcceptingTest {
    private static final ExchangeHandler OK = ex -> ex.respond(200, "ok");
    private static final int ROUNDS = 120;
    private static final int CLIENTS = 6;
    /** Far longer than an answer or a close takes even on a loaded machine; a lost connection never gets either. */
    private static final int READ_TIMEOUT_MILLIS = 5_000;

    @Test
    void everyConnectionAcceptedWhileTheListenerDrainsIsAnsweredOrClosed() throws Exception {
        List<String> unanswered = new CopyOnWriteArrayList<>();
        for (int round = 0; round < ROUNDS && unanswered.isEmpty(); round++) {
            IdleConnectionParkingTest.Counting events = new IdleConnectionParkingTest.Counting();
            Listener l = new Listener(RunningListener.settings(Duration.ofSeconds(10), Duration.ofSeconds(60),
                    Duration.ofSeconds(60)), null, OK, ConnectionExecutors.create(ThreadModel.VIRTUAL, "drain-accept"),
                    events, Watchdog.shared(), null).start();
            int port = l.port();
            AtomicBoolean connecting = new AtomicBoolean(true);
            AtomicInteger answered = new AtomicInteger();
            try (ExecutorService clients = Executors.newVirtualThreadPerTaskExecutor()) {
                for (int i = 0; i < CLIENTS; i++) {
                    clients.submit(() -> {
                        while (connecting.get()) {
                            request(port, answered, unanswered);
                        }
                    });
                }
                // Drain once connections are arriving steadily.
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                while (answered.get() < CLIENTS && System.nanoTime() < deadline) {
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
                }
                l.drain(Duration.ZERO);
                connecting.set(false);
            } // waits for every client: answered, refused, reset, closed, or (the defect) its read timed out
            assertThat(answered.get()).as("requests answered before the drain").isPositive();
            RunningListener.await("every connection counted closed",
                    () -> events.closed.get() == events.opened.get() && l.openConnections() == 0);
        }
        assertThat(unanswered).as("connections neither answered nor closed").isEmpty();
    }

    /** One connection, one request: adds to {@code unanswered} only when neither a response nor a close came. */
    private static void request(int port, AtomicInteger answered, List<String> unanswered) {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
            s.setSoTimeout(READ_TIMEOUT_MILLIS);
            s.getOutputStream().write("GET / HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n"
                    .getBytes(StandardCharsets.US_ASCII));
            InputStream in = s.getInputStream();
            byte[] buf = new byte[512];
            int n = in.read(buf);
            if (n > 0 && new String(buf, 0, n, StandardCharsets.US_ASCII).startsWith("HTTP/1.1 200")) {
                answered.incrementAndGet();
            }
        } catch (SocketTimeoutException e) {
            unanswered.add("a connection from port " + port + ": no answer and no close within "
                    + READ_TIMEOUT_MILLIS + " ms");
        } catch (IOException e) {
            // refused (the listener is closed), reset or closed by the drain: an answer too
        }
    }
}
