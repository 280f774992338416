package io.loomgate.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A loopback port whose connects never complete, for connect-timeout tests without a route to a real black hole: a
 * listener with a backlog of one that never accepts, its accept queue filled by the sockets made here. Linux drops a
 * SYN to a listener whose accept queue is full (no answer, no reset), so a connect to {@link #address()} waits until
 * its own timeout.
 *
 * <p>The queue counts as full when the kernel says so: Linux's TCP table (/proc/net/tcp{,6}) gives a listener's
 * accept-queue length as its rx_queue, full above the backlog. Not when a filling connect times out: on a loaded
 * machine the kernel's loopback processing (softirq, then ksoftirqd) can take longer than the filler's 300 ms, so a
 * filler timed out with room left in the queue, and the test's own dial then connected (session 59: "leased
 * connection #1" in ConnectFailureTest at load ~20). The timeout is the rule only where the table cannot be read.
 */
public final class BlackHole implements AutoCloseable {
    private static final int BACKLOG = 1;
    private static final int FILL_TIMEOUT_MILLIS = 300;
    private static final int MOST_FILLERS = 64;
    /** How long the kernel may take to queue the fillers' connects (load ~20 on 2 cores: a few hundred ms). */
    private static final long FILL_DEADLINE_NANOS = TimeUnit.SECONDS.toNanos(20);
    private static final List<Path> TCP_TABLES = List.of(Path.of("/proc/net/tcp"), Path.of("/proc/net/tcp6"));

    /** 127.0.0.1, ::ffff:127.0.0.1 (the JDK's dual-stack socket) and ::1 as the TCP tables write them. */
    private static final List<String> LOOPBACK = List.of("0100007F", "0000000000000000FFFF00000100007F",
            "00000000000000000000000001000000");

    private final ServerSocket listener;
    private final List<Socket> fillers = new ArrayList<>();

    /**
     * @throws IllegalStateException when the kernel kept answering (a queue that never fills: not Linux's rule)
     */
    public BlackHole() throws IOException {
        listener = new ServerSocket(0, BACKLOG, InetAddress.getLoopbackAddress());
        try {
            fill();
        } catch (IOException | RuntimeException e) {
            close();
            throw e;
        }
    }

    private void fill() throws IOException {
        boolean tableKnown = TCP_TABLES.stream().anyMatch(Files::isReadable);
        long end = System.nanoTime() + FILL_DEADLINE_NANOS;
        while (true) {
            if (tableKnown && acceptQueueLength() > BACKLOG) {
                return;
            }
            if (fillers.size() < MOST_FILLERS) {
                Socket s = new Socket();
                fillers.add(s);
                try {
                    s.connect(address(), FILL_TIMEOUT_MILLIS);
                } catch (SocketTimeoutException full) {
                    if (!tableKnown) {
                        return; // no table to ask: the timeout is the only sign
                    }
                    // the table decides: a timeout at load may be a kernel late with the SYN, not a full queue
                }
            } else if (!tableKnown) {
                break;
            } else {
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1)); // the fillers' ACKs still to be queued
            }
            if (System.nanoTime() - end > 0) {
                break;
            }
        }
        throw new IllegalStateException("the accept queue of a listener with backlog " + BACKLOG + " never filled after "
                + fillers.size() + " connects: no black hole on this kernel");
    }

    /** The listener's accept-queue length from Linux's TCP table (rx_queue of its LISTEN row); -1 if not found. */
    private int acceptQueueLength() {
        String port = String.format(":%04X", listener.getLocalPort());
        for (Path table : TCP_TABLES) {
            if (!Files.isReadable(table)) {
                continue;
            }
            try {
                for (String line : Files.readAllLines(table)) {
                    String[] f = line.trim().split("\\s+");
                    // sl local_address rem_address st tx_queue:rx_queue ...; 0A is LISTEN
                    if (f.length > 4 && f[3].equals("0A") && f[1].endsWith(port)
                            && LOOPBACK.contains(f[1].substring(0, f[1].length() - port.length()))) {
                        return Integer.parseInt(f[4].substring(f[4].indexOf(':') + 1), 16);
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return -1;
    }

    public InetSocketAddress address() {
        return new InetSocketAddress(InetAddress.getLoopbackAddress(), listener.getLocalPort());
    }

    public int port() {
        return listener.getLocalPort();
    }

    /** The listener, for {@link SlowAccept}, which starts accepting on it. */
    ServerSocket listener() {
        return listener;
    }

    @Override
    public void close() throws IOException {
        for (Socket s : fillers) {
            s.close();
        }
        listener.close();
    }
}
