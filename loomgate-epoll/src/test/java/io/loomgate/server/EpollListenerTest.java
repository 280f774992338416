package io.loomgate.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.RawClient;
import io.loomgate.threads.ConnectionExecutors;
import io.loomgate.threads.ThreadModel;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * The gateway's {@link Listener} on {@code transport: epoll}: it runs there (not silently on the JDK's sockets),
 * serves keep-alive HTTP/1.1 unchanged, and its deadlines hold on epoll sockets with the real watchdog: a slowloris
 * head (a byte now and then, never finished) gets 408 at the header timeout, not at the pace the client sets.
 * The whole protocol matrix on epoll runs in loomgate-cli (profile transport-epoll).
 */
// Beside the module's other classes (loomgate-epoll/pom.xml): its slowloris case waits out a header timeout on a
// listener of its own, no count of the JVM's threads or descriptors; its lock keeps its own cases in a row, on one
// thread, as before.
@Execution(ExecutionMode.CONCURRENT)
@ResourceLock("EpollListenerTest")
class EpollListenerTest {
    private static final Duration HEADER = Duration.ofMillis(500);
    private static final Duration LONG = Duration.ofSeconds(60);

    private static Listener start(ListenerSettings settings) throws IOException {
        return new Listener(settings, ex -> ex.respond(200, "hi"),
                ConnectionExecutors.create(ThreadModel.VIRTUAL, "epoll-test"), ConnectionListener.NOOP)
                .transport(Transport.EPOLL).start();
    }

    private static ListenerSettings settings(Duration header, Duration idle, Duration read) {
        ListenerSettings d = ListenerSettings.defaults("127.0.0.1", 0);
        return new ListenerSettings(d.address(), d.port(), d.backlog(), d.maxConnections(), header, idle, read,
                d.limits());
    }

    @Test
    void keepAliveRequestsAreServedOnEpollSockets() throws IOException {
        try (Listener l = start(settings(LONG, LONG, LONG));
             RawClient client = new RawClient(l.port())) {
            assertThat(l.transport()).isEqualTo(Transport.EPOLL);
            for (int i = 0; i < 3; i++) {
                RawClient.Response r = client.get("/n" + i);
                assertThat(r.status()).isEqualTo(200);
                assertThat(r.bodyText()).isEqualTo("hi");
            }
            assertThat(l.openConnections()).isEqualTo(1);
        }
    }

    @Test
    void aSlowlorisHeadGets408AtTheHeaderTimeout() throws Exception {
        try (Listener l = start(settings(HEADER, LONG, LONG));
             RawClient client = new RawClient(l.port())) {
            long start = System.nanoTime();
            client.send("GET / HTTP/1.1\r\nHost: t\r\n");
            byte[] drip = "X-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
                    .getBytes(StandardCharsets.US_ASCII);
            RawClient.Response r = null;
            // one byte every 100 ms, each within any per-read limit, until the gateway answers (a generous bound)
            for (int i = 0; i < drip.length && System.nanoTime() - start < TimeUnit.SECONDS.toNanos(30); i++) {
                try {
                    client.send(new byte[] {drip[i]});
                } catch (IOException closed) {
                    break; // answered and closed: read it below
                }
                if (client.socket().getInputStream().available() > 0) {
                    break;
                }
                java.util.concurrent.locks.LockSupport.parkNanos(100_000_000L); // the attacker's pace, not a wait
            }
            r = client.read();
            long took = System.nanoTime() - start;
            assertThat(r.status()).isEqualTo(408);
            assertThat(r.header("Connection")).isEqualTo("close");
            assertThat(took).as("answered near the header timeout, long before the drip ends")
                    .isLessThan(TimeUnit.SECONDS.toNanos(8));
            RunningAwait.until("connection closed", () -> l.openConnections() == 0);
        }
    }

    /** Polls with a generous deadline (a loaded machine), no fixed sleeps. */
    private static final class RunningAwait {
        static void until(String what, java.util.function.BooleanSupplier condition) {
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!condition.getAsBoolean()) {
                assertThat(System.nanoTime() - end).as(what).isNegative();
                Thread.yield();
            }
        }
    }
}
