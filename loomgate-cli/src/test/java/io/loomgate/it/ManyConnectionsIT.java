package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.JarProcess;
import io.loomgate.testkit.PrometheusText;
import io.loomgate.testkit.RawClient;
import io.loomgate.testkit.TestOrigin;
import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * 10,000 client connections open at once, each served twice, with zero errors, in a gateway process whose file
 * descriptors are limited like this machine's (20,000): admission control (max-connections, the upstream pool's
 * max-connections) keeps the gateway inside its budget instead of failing accepts or dials. Between the two rounds
 * every connection is idle long enough to give its thread up (the parked-connection gauge reaches 10,000), so the
 * second round is 10,000 resumptions; when the clients close, the parked connections end and every gauge is 0, as is
 * the number of sockets the gateway still holds on its port (a failure keeps the gateway's log and thread dump).
 */
class ManyConnectionsIT {
    private static final int CONNECTIONS = 10_000;
    private static final int READ_TIMEOUT_MILLIS = 60_000;

    @Test
    void tenThousandConcurrentKeepAliveConnectionsAreAllServed(@TempDir Path dir) throws Exception {
        Path yaml = dir.resolve("gateway.yaml");
        Files.writeString(yaml, """
                server:
                  address: 127.0.0.1
                  port: 0
                  max-connections: 10000
                admin:
                  port: ${ADMIN}
                upstream:
                  max-connections: 2000
                routes:
                  - id: main
                    uri: ${ORIGIN}
                    predicates: [ "Path=/**" ]
                """);
        try (TestOrigin origin = new TestOrigin();
             // admin port 0 would turn the admin listener off: a probed port, retried if lost before the bind
             JarProcess gw = JarProcess.listening(Duration.ofSeconds(20), admin -> JarProcess.start(
                     List.of("-Xmx512m"), List.of("serve", "--config", yaml.toString()),
                     Map.of("ORIGIN", origin.uri(), "ADMIN", Integer.toString(admin))))) {
            int port = gw.awaitListening(Duration.ofSeconds(20));
            int admin = gw.adminPort();
            // The kernel's counters of connections a full accept queue refused (every listener of this namespace's):
            // a failed dial is the origin's backlog's doing only if they moved
            Map<String, Long> listenBefore = listenCounters();
            List<RawClient> clients = new ArrayList<>(CONNECTIONS);
            AtomicInteger ok = new AtomicInteger();
            List<String> errors = java.util.Collections.synchronizedList(new ArrayList<>());
            try (ExecutorService vt = Executors.newVirtualThreadPerTaskExecutor()) {
                List<Future<RawClient>> opened = new ArrayList<>();
                for (int i = 0; i < CONNECTIONS; i++) {
                    int n = i;
                    opened.add(vt.submit(() -> {
                        Socket socket = new Socket(InetAddress.getLoopbackAddress(), port);
                        RawClient c = new RawClient(socket);
                        // a generous read deadline: on a loaded 2-core machine 10,000 first requests queue for
                        // seconds; what is asserted is that every one is served, not how fast
                        socket.setSoTimeout(READ_TIMEOUT_MILLIS);
                        request(c, "/first/" + n, ok, errors);
                        return c;
                    }));
                }
                for (Future<RawClient> f : opened) {
                    clients.add(f.get());
                }
                // Idle: each connection's thread hands it to the listener's selector after the hand-off delay.
                awaitGauge(admin, "loomgate_client_connections_parked", CONNECTIONS);
                // Every connection is still open: a second request on each.
                List<Future<?>> second = new ArrayList<>();
                for (int i = 0; i < CONNECTIONS; i++) {
                    RawClient c = clients.get(i);
                    int n = i;
                    second.add(vt.submit(() -> {
                        request(c, "/second/" + n, ok, errors);
                        return null;
                    }));
                }
                for (Future<?> f : second) {
                    f.get();
                }
            } finally {
                for (RawClient c : clients) {
                    c.close();
                }
            }
            try {
                assertThat(errors).isEmpty();
                assertThat(ok.get()).isEqualTo(2 * CONNECTIONS);
            } catch (AssertionError e) {
                throw keepEvidence(e, gw, admin, port, origin, listenBefore);
            }
            // Closed by their clients (most while parked again): each ended once, nothing left counted, and the
            // count is the truth: the gateway holds no socket of the listener's port any more.
            try {
                awaitGauge(admin, "loomgate_client_connections_parked", 0);
                awaitGauge(admin, "loomgate_client_connections", 0);
                assertThat(gatewaySockets(port)).as("the gateway's sockets on its port").isZero();
            } catch (AssertionError e) {
                throw keepEvidence(e, gw, admin, port, origin, listenBefore);
            }
            assertThat(gw.output()).doesNotContain("Too many open files").doesNotContain("accept on port");
        }
    }

    /**
     * Sockets of the listener's port the gateway still holds (ESTABLISHED or CLOSE_WAIT in /proc/net/tcp, local port
     * {@code port}): what the open-connection gauge must agree with. The clients' ends have other local ports.
     */
    private static long gatewaySockets(int port) throws IOException {
        String local = String.format(":%04X ", port);
        try (var lines = Files.lines(Path.of("/proc/net/tcp"))) {
            return lines.skip(1).map(String::trim)
                    .filter(l -> l.split("\\s+")[1].endsWith(local.trim()))
                    .map(l -> l.split("\\s+")[3])
                    .filter(state -> state.equals("01") || state.equals("08")) // ESTABLISHED, CLOSE_WAIT
                    .count();
        }
    }

    /**
     * A failed count keeps what explains it: the gauges, the gateway's sockets on its port, its thread dump and its
     * log, written under target/ (the process's log is deleted when it ends).
     */
    private static AssertionError keepEvidence(AssertionError e, JarProcess gw, int admin, int port,
                                               TestOrigin origin, Map<String, Long> listenBefore) {
        Path kept = Path.of("target", "ManyConnectionsIT-gateway-" + gw.pid() + ".log");
        StringBuilder facts = new StringBuilder();
        try {
            String metrics = get(admin, "/metrics");
            PrometheusText p = new PrometheusText(metrics);
            facts.append("loomgate_client_connections ").append(p.value("loomgate_client_connections"))
                    .append(", parked ").append(p.value("loomgate_client_connections_parked"))
                    .append(", gateway sockets on port ").append(port).append(": ").append(gatewaySockets(port))
                    .append(", origin connections accepted ").append(origin.connectionCount())
                    .append(", kernel listen counters before ").append(listenBefore)
                    .append(" after ").append(listenCounters())
                    // refused or timed out: the kind of each failed dial
                    .append(", ").append(metrics.lines().filter(l -> l.startsWith("loomgate_upstream_errors_total"))
                            .toList());
            Files.createDirectories(kept.getParent());
            Files.writeString(kept, facts + "\n\n--- threads\n" + get(admin, "/threads?format=text")
                    + "\n--- gateway log\n" + gw.output());
        } catch (IOException | RuntimeException io) {
            e.addSuppressed(io);
        }
        return new AssertionError(e.getMessage() + "; " + facts + "; gateway log and threads kept in "
                + kept.toAbsolutePath(), e);
    }

    /** TcpExt's ListenOverflows and ListenDrops from /proc/net/netstat (empty where the file is missing). */
    private static Map<String, Long> listenCounters() {
        try {
            List<String> lines = Files.readAllLines(Path.of("/proc/net/netstat"));
            for (int i = 0; i + 1 < lines.size(); i++) {
                if (lines.get(i).startsWith("TcpExt:") && lines.get(i + 1).startsWith("TcpExt:")) {
                    String[] names = lines.get(i).split("\\s+");
                    String[] values = lines.get(i + 1).split("\\s+");
                    Map<String, Long> counters = new java.util.TreeMap<>();
                    for (int k = 1; k < names.length && k < values.length; k++) {
                        if (names[k].equals("ListenOverflows") || names[k].equals("ListenDrops")) {
                            counters.put(names[k], Long.parseLong(values[k]));
                        }
                    }
                    return counters;
                }
            }
        } catch (IOException | RuntimeException e) {
            // evidence only: a missing file leaves the counters out
        }
        return Map.of();
    }

    private static String get(int admin, String path) throws IOException {
        try (RawClient c = new RawClient(admin)) {
            // An IP literal as Host: the admin listener answers only its own names (DNS rebinding)
            return c.send("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n").read()
                    .bodyText();
        }
    }

    /** Polls the admin /metrics until the gauge has the value; fails after a deadline generous for a loaded machine. */
    private static void awaitGauge(int admin, String name, int expected) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        double last = Double.NaN;
        while (System.nanoTime() - deadline < 0) {
            last = new PrometheusText(get(admin, "/metrics")).value(name);
            if (last == expected) {
                return;
            }
            LockSupport.parkNanos(Duration.ofMillis(200).toNanos());
        }
        assertThat(last).as(name).isEqualTo(expected);
    }

    private static void request(RawClient c, String path, AtomicInteger ok, List<String> errors) {
        try {
            RawClient.Response r = c.send("GET " + path + " HTTP/1.1\r\nHost: h\r\n\r\n").read();
            if (r.status() == 200) {
                ok.incrementAndGet();
            } else {
                errors.add(path + ": " + r.status() + " " + r.bodyText());
            }
        } catch (Exception e) {
            errors.add(path + ": " + e);
        }
    }
}
