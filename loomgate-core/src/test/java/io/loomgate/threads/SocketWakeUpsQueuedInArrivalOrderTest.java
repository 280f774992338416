package io.loomgate.threads;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Loading {@link ConnectionExecutors} (which makes every virtual thread of the gateway) chooses the JDK's platform
 * socket pollers unless the operator chose a mode: a virtual thread blocked on a socket is then woken by the
 * {@code Read-Poller} platform thread, not by a {@code SubPoller} virtual thread that keeps the carrier's local queue
 * full under load (docs/performance.md, "An https:// origin at 256 connections": the hypothesis and its evidence).
 * Checked in a fresh JVM, because the JDK reads the mode once per process, at the first blocking socket operation of
 * a virtual thread, and another test in this JVM may have made that happen first.
 */
class SocketWakeUpsQueuedInArrivalOrderTest {

    @Test
    void theGatewaysVirtualThreadsAreWokenByPlatformPollers() throws Exception {
        List<String> lines = runChild(List.of());
        assertThat(lines).contains("mode 1");
        assertThat(lines).anyMatch(l -> l.startsWith("pollers ") && l.contains("Read-Poller"))
                .noneMatch(l -> l.startsWith("pollers ") && l.contains("MasterPoller"));
    }

    @Test
    void anOperatorsChoiceOfPollerModeIsKept() throws Exception {
        List<String> lines = runChild(List.of("-Djdk.pollerMode=2"));
        assertThat(lines).contains("mode 2");
        assertThat(lines).anyMatch(l -> l.startsWith("pollers ") && l.contains("MasterPoller"));
    }

    private static List<String> runChild(List<String> jvmArgs) throws Exception {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmArgs);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), Child.class.getName()));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("child ended: %s", out).isTrue();
        assertThat(p.exitValue()).as("child's exit: %s", out).isZero();
        return out.lines().toList();
    }

    /** Loads ConnectionExecutors, blocks a virtual thread of it on a socket read, prints the poller threads. */
    public static final class Child {
        public static void main(String[] args) throws Exception {
            try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                 Socket client = new Socket(InetAddress.getLoopbackAddress(), server.getLocalPort());
                 Socket accepted = server.accept()) {
                Thread reader = ConnectionExecutors.startVirtual("reader", () -> {
                    try (InputStream in = client.getInputStream()) {
                        in.read();
                    } catch (IOException e) {
                        throw new IllegalStateException(e);
                    }
                });
                // Poll until the reader is parked in its read (the pollers exist from then on), at most 30 s.
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (reader.getState() != Thread.State.WAITING && System.nanoTime() < deadline) {
                    Thread.sleep(10);
                }
                Set<String> pollers = new TreeSet<>();
                for (Thread t : Thread.getAllStackTraces().keySet()) {
                    if (t.getName().contains("Poller")) {
                        pollers.add(t.getName());
                    }
                }
                accepted.getOutputStream().write(1);
                reader.join(30_000);
                System.out.println("mode " + System.getProperty(ConnectionExecutors.POLLER_MODE));
                System.out.println("pollers " + pollers);
            }
        }
    }
}
