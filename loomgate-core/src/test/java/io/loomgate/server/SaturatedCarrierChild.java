package io.loomgate.server;

import io.loomgate.threads.ConnectionExecutors;
import io.loomgate.threads.StartGate;
import io.loomgate.threads.ThreadModel;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;

/**
 * A process of its own for {@link NewConnectionUnderLoadTest}: one carrier ({@code
 * jdk.virtualThreadScheduler.parallelism=1}, fixed when a JVM starts), a {@link Listener} answering every request
 * itself, and {@code args[0]} keep-alive clients, each a platform thread asking again as soon as it has its answer,
 * which keeps the carrier's own queue full (the JDK's sub-poller finds events at every poll). It prints the clients'
 * rate ({@code RATE per_ms=<requests per ms>}), then opens {@code args[1]} new connections one after the other, each
 * asking once, and prints per new connection how many requests the clients were answered between its connect and its
 * answer ({@code PROBE served=<n> millis=<ms>}), then {@code STEPPED_ASIDE <n>} and {@code DONE}. A count, not a time:
 * on a loaded machine the clients and the carrier share the cores, but what starves a start is how much else the
 * carrier runs first.
 */
final class SaturatedCarrierChild {
    private static final byte[] REQUEST = "GET /busy HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] LAST = "GET /new HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
            .getBytes(StandardCharsets.US_ASCII);
    /** The most a new connection waits for its answer: far beyond a stall the test tells from none. */
    private static final int PROBE_TIMEOUT_MILLIS = 60_000;

    private SaturatedCarrierChild() {
    }

    public static void main(String[] args) throws Exception {
        int clients = Integer.parseInt(args[0]);
        int probes = Integer.parseInt(args[1]);
        Listener listener = new Listener(ListenerSettings.defaults("127.0.0.1", 0), ex -> ex.respond(200, "ok"),
                ConnectionExecutors.create(ThreadModel.VIRTUAL, "child-conn"), ConnectionListener.NOOP).start();
        InetAddress loopback = InetAddress.getLoopbackAddress();
        LongAdder served = new LongAdder();
        AtomicBoolean stop = new AtomicBoolean();
        List<Thread> load = new ArrayList<>();
        for (int i = 0; i < clients; i++) {
            Socket s = new Socket(loopback, listener.port());
            s.setTcpNoDelay(true);
            s.setSoTimeout(PROBE_TIMEOUT_MILLIS);
            load.add(Thread.ofPlatform().daemon(true).name("client-" + i).start(() -> {
                try (s) {
                    OutputStream out = s.getOutputStream();
                    InputStream in = s.getInputStream();
                    while (!stop.get()) {
                        out.write(REQUEST);
                        readAnswer(in);
                        served.increment();
                    }
                } catch (IOException e) {
                    if (!stop.get()) {
                        System.out.println("CLIENT FAILED " + e);
                    }
                }
            }));
        }
        // Under way: every client answered a few times. Then the rate the probes' counts are measured against.
        long warm = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (served.sum() < 200L * clients && System.nanoTime() < warm) {
            Thread.sleep(10);
        }
        long from = served.sum();
        long t0 = System.nanoTime();
        Thread.sleep(500);
        System.out.println("RATE per_ms=" + (served.sum() - from) * 1_000_000.0 / (System.nanoTime() - t0));
        for (int i = 0; i < probes; i++) {
            long before = served.sum();
            long start = System.nanoTime();
            try (Socket s = new Socket(loopback, listener.port())) {
                s.setSoTimeout(PROBE_TIMEOUT_MILLIS);
                s.getOutputStream().write(LAST);
                readAnswer(s.getInputStream());
                System.out.println("PROBE served=" + (served.sum() - before) + " millis="
                        + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
            } catch (IOException e) {
                System.out.println("PROBE failed after " + (served.sum() - before) + ": " + e);
            }
            Thread.sleep(100);
        }
        System.out.println("STEPPED_ASIDE " + StartGate.steppedAside());
        System.out.println("DONE");
        System.out.flush();
        stop.set(true);
        System.exit(0);
    }

    /** Reads one answer of {@code ex.respond(200, "ok")}: its head, then the two bytes of its body. */
    private static void readAnswer(InputStream in) throws IOException {
        int matched = 0;
        while (matched < 4) { // up to the blank line
            int b = in.read();
            if (b < 0) {
                throw new IOException("closed before the answer");
            }
            matched = (b == (matched % 2 == 0 ? '\r' : '\n')) ? matched + 1 : (b == '\r' ? 1 : 0);
        }
        for (int i = 0; i < 2; i++) {
            if (in.read() < 0) {
                throw new IOException("closed inside the body");
            }
        }
    }
}
