package io.loomgate.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.RawClient;
import io.loomgate.threads.ConnectionExecutors;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The memory gate in a process with a small heap and a small young generation ({@link MemoryGateChild}: Serial, a
 * 64 MiB heap, a 2 MiB young generation, as a 12 MiB one in the launcher's 176 MiB heap is small): young collections
 * promote what requests in flight hold, the old generation fills with that garbage between full collections, and a
 * gate that read the heap after young collections shut on it; once the traffic stopped, nothing collected any more
 * and nothing reopened it, so new connections waited in the backlog for good (stop 38, the image with a 12 MiB young
 * generation). Here the gate must let new connections in after garbage-heavy traffic, and after live data that really
 * filled the old generation (which must shut it) has gone and the process is idle.
 */
class MemoryGateReopensTest {
    private static final List<String> SMALL_HEAP = List.of("-XX:+UseSerialGC", "-Xms64m", "-Xmx64m", "-Xmn2m",
            "-XX:+ExitOnOutOfMemoryError");
    /** Far longer than the gate's own recheck and first asked-for collection (1 s, 2 s) on a loaded machine. */
    private static final int ANSWER_DEADLINE_MILLIS = 60_000;
    private static final long TRAFFIC_DEADLINE_NANOS = TimeUnit.SECONDS.toNanos(180);
    private static final Pattern STATE = Pattern.compile("STATE shut=(true|false) full=(\\d+)");
    /** Clients growing the live set at once. */
    private static final int HOLDERS = 2;

    @Test
    void afterGarbageHeavyTrafficAnIdleGatewayAcceptsNewConnections(@TempDir Path dir) throws Exception {
        try (Child child = Child.start(dir)) {
            List<RawClient> clients = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                clients.add(new RawClient(child.port));
            }
            AtomicBoolean stop = new AtomicBoolean();
            AtomicReference<Throwable> failed = new AtomicReference<>();
            List<Thread> senders = new ArrayList<>();
            for (RawClient c : clients) {
                senders.add(ConnectionExecutors.startVirtual("garbage-sender", () -> {
                    try {
                        while (!stop.get()) {
                            assertThat(c.get("/garbage").status()).isEqualTo(200);
                        }
                    } catch (Throwable e) {
                        failed.compareAndSet(null, e);
                    }
                }));
            }
            // Until the old generation has filled with promoted garbage and been collected three times, or the gate
            // shuts (what it did on garbage before): the traffic stops at once, and the gateway is idle.
            long deadline = System.nanoTime() + TRAFFIC_DEADLINE_NANOS;
            boolean shutSeen = false;
            int fullCollections = 0;
            while (fullCollections < 3 && !shutSeen && failed.get() == null) {
                assertThat(System.nanoTime() - deadline).as("three full collections under garbage-heavy traffic")
                        .isNegative();
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2));
                shutSeen = child.shutSeen();
                fullCollections = child.fullCollections();
            }
            stop.set(true);
            for (Thread t : senders) {
                t.join();
            }
            assertThat(failed.get()).as("the garbage traffic's requests were answered (child: %s)", child.lastState())
                    .isNull();
            try (Socket slip = request(child.port); Socket newcomer = request(child.port)) {
                assertThat(answered(newcomer, ANSWER_DEADLINE_MILLIS))
                        .as("a new connection after the traffic stopped is answered (gate shut seen: %s; child: %s)",
                                shutSeen, child.lastState()).isTrue();
            }
            assertThat(shutSeen).as("the gate shut on promoted garbage").isFalse();
            for (RawClient c : clients) {
                c.close();
            }
        }
    }

    @Test
    void liveDataThatFillsTheOldGenerationShutsTheGateAndOnceGoneAnIdleGatewayAcceptsAgain(@TempDir Path dir)
            throws Exception {
        try (Child child = Child.start(dir); RawClient control = new RawClient(child.port)) {
            // Two clients hold 64 KiB more live data each per request, at once (a flood's connections pile up faster
            // than one client's round trips), until the gate shuts: the child then holds no more. A gate that judged
            // only after the JVM's own full collections shut when the old generation was already full (58-60 MiB
            // held), and faster growth (four clients holding 256 KiB each) ran the heap out first in one of two runs
            // (the child exits on OutOfMemoryError). Judged early, the gate asks for a full collection when the old
            // generation passes 85% (52.7 MiB, garbage included) and shuts if the live set is above that; what grows
            // while it judges (the notification, the full collection) grows with the clients' speed, so the test
            // keeps that to a few MiB.
            long deadline = System.nanoTime() + TRAFFIC_DEADLINE_NANOS;
            AtomicReference<Throwable> failed = new AtomicReference<>();
            List<Thread> holders = new ArrayList<>();
            for (int i = 0; i < HOLDERS; i++) {
                holders.add(ConnectionExecutors.startVirtual("holder", () -> {
                    try (RawClient c = new RawClient(child.port)) {
                        while (!c.get("/hold").bodyText().startsWith("shut") && System.nanoTime() < deadline) {
                            // again: the gate has not shut yet
                        }
                    } catch (Throwable e) {
                        failed.compareAndSet(null, e);
                    }
                }));
            }
            for (Thread t : holders) {
                t.join();
            }
            assertThat(failed.get()).as("every hold answered until the gate shut (child: %s)", child.lastState())
                    .isNull();
            assertThat(child.shutSeen()).as("the gate shut").isTrue();
            // Early, not late: the first full collection is one the gate asked for ("System.gc()" in the child's GC
            // log); the gate that judged only after the JVM's own shut on a collection the full old generation forced
            // ("Allocation Failure", 62M->62M, 58-59 MiB held: 2 of 2 runs with the gate's asks disabled). Not a bound
            // on what was held: if that first collection finds the live set just under 85% the gate stays open and
            // moves its mark halfway to the maximum (92.5% at most), and shuts on the next, where 57 MiB held (a
            // quiet clean-clone run, stop 44) and 59 (session 51, at load ~20) are its design, not a late gate.
            List<String> full = child.fullCollectionLines();
            System.out.printf("memory gate shut with %d MiB held; full collections: %s%n", child.heldAtShut(), full);
            assertThat(full.isEmpty() ? "none" : full.getFirst())
                    .as("the first full collection (of %s; %d MiB held at the shut)", full, child.heldAtShut())
                    .contains("Pause Full (System.gc())");
            try (Socket slip = request(child.port); Socket waiting = request(child.port)) {
                InputStream in = waiting.getInputStream();
                waiting.setSoTimeout(500);
                assertThat(readsNothing(in)).as("while the heap is full of live data, a newcomer waits").isTrue();
                assertThat(control.get("/release").status()).as("accepted connections are still served")
                        .isEqualTo(200);
                // Idle from here: nothing allocates, so no collection happens unless the gate asks for one.
                assertThat(answered(waiting, ANSWER_DEADLINE_MILLIS))
                        .as("the waiting newcomer is answered once the live data has gone (child: %s)",
                                child.lastState()).isTrue();
            }
        }
    }

    /**
     * A request on a new connection, sent without waiting for its answer. The accept loop may already be blocked in
     * {@code accept()} when the gate shuts, and then takes one more connection: tests open this one first, so the
     * next is the one the gate decides about.
     */
    private static Socket request(int port) throws IOException {
        Socket s = new Socket(InetAddress.getLoopbackAddress(), port);
        s.getOutputStream().write(
                "GET / HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
        return s;
    }

    /** Whether the connection's request is answered 200 within the deadline. */
    private static boolean answered(Socket s, int millis) throws IOException {
        s.setSoTimeout(millis);
        try {
            return new String(s.getInputStream().readNBytes(12), StandardCharsets.ISO_8859_1).equals("HTTP/1.1 200");
        } catch (SocketTimeoutException e) {
            return false;
        }
    }

    private static boolean readsNothing(InputStream in) throws IOException {
        try {
            in.read();
            return false;
        } catch (SocketTimeoutException e) {
            return true;
        }
    }

    /** {@link MemoryGateChild} running, its stdout in a file polled with deadlines. */
    private record Child(Process process, Path out, Path err, Path gcLog, int port) implements AutoCloseable {
        private static final Pattern PORT = Pattern.compile("PORT (\\d+)");
        private static final Pattern SHUT_AT = Pattern.compile("SHUT held=(\\d+)");

        static Child start(Path dir) throws IOException {
            List<String> cmd = new ArrayList<>(List.of(
                    Path.of(System.getProperty("java.home"), "bin", "java").toString()));
            cmd.addAll(SMALL_HEAP);
            if (Boolean.getBoolean("memorygate.test.late")) { // the gate's asks ignored: it judges as before stop 39
                cmd.add("-XX:+DisableExplicitGC");
            }
            Path gcLog = dir.resolve("gc.txt");
            cmd.add("-Xlog:gc:file=" + gcLog);
            cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), MemoryGateChild.class.getName()));
            Path out = dir.resolve("child.out");
            Path err = dir.resolve("child.err");
            Process p = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
            while (System.nanoTime() < deadline) {
                Matcher m = PORT.matcher(read(out));
                if (m.find()) {
                    return new Child(p, out, err, gcLog, Integer.parseInt(m.group(1)));
                }
                if (!p.isAlive()) {
                    throw new AssertionError("the child exited with " + p.exitValue() + ": " + read(err));
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
            }
            p.destroyForcibly();
            throw new AssertionError("the child did not listen within 90 s: " + read(err));
        }

        /** Whether the child has reported the gate shut at any time so far. */
        boolean shutSeen() throws IOException {
            assertThat(process.isAlive()).as("the child lives (stderr: %s)", read(err)).isTrue();
            return read(out).contains("STATE shut=true");
        }

        /** MiB of live data the child held when it first answered a hold with the gate shut. */
        int heldAtShut() throws IOException {
            Matcher m = SHUT_AT.matcher(read(out));
            assertThat(m.find()).as("the child reported the gate shut").isTrue();
            return Integer.parseInt(m.group(1)) / 16; // 64 KiB each
        }

        int fullCollections() throws IOException {
            Matcher m = STATE.matcher(read(out));
            int n = 0;
            while (m.find()) {
                n = Integer.parseInt(m.group(2));
            }
            return n;
        }

        /** The child's full collections as its GC log has them, in order. */
        List<String> fullCollectionLines() throws IOException {
            return read(gcLog).lines().filter(l -> l.contains("Pause Full")).toList();
        }

        /** The last STATE line, how the child ended if it has, and its last collections. */
        String lastState() throws IOException {
            String state = read(out).lines().filter(l -> l.startsWith("STATE")).reduce("", (a, b) -> b);
            List<String> gcs = read(gcLog).lines().toList();
            return state + (process.isAlive() ? "" : " (exited " + process.exitValue() + ": " + read(err) + ")")
                    + "; last collections: " + gcs.subList(Math.max(0, gcs.size() - 4), gcs.size());
        }

        private static String read(Path f) throws IOException {
            return Files.exists(f) ? Files.readString(f, StandardCharsets.UTF_8) : "";
        }

        @Override
        public void close() throws InterruptedException {
            process.destroyForcibly();
            process.waitFor(30, TimeUnit.SECONDS);
        }
    }
}
