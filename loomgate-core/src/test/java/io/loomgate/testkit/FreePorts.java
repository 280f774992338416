package io.loomgate.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Ports for what must be told its port before it binds it: a child process's command line or configuration (the
 * gateway's jar, redis-server, nghttpd, Jaeger, openssl), or a listener whose port 0 means "off" (the gateway's admin
 * listener, its {@code http-redirect-port}). Whatever can bind port 0 itself and say which port it got should do
 * that instead ({@code server.port: 0}, {@code ServedGateway#port()}, the JDK's servers): then no port can be lost.
 *
 * <p>A port found free is free only until someone binds it: under load another JVM's connection or listener took one
 * between the probe and the gateway's bind (clean-clone run 49 of session 51, {@code OriginProbeTest}'s admin port).
 * {@link #start} therefore starts again on other ports when, and only when, the start failed because a port was
 * taken ({@link #lostBind}), at most {@link #TRIES} times; any other failure is thrown at once, unretried.
 */
public final class FreePorts {
    /** Starts tried before a lost bind is given up: losing a port twice in a row already needs a very busy machine. */
    public static final int TRIES = 3;

    private FreePorts() {
    }

    /** Starts something on one port probed free (see {@link #start(int, OnPorts)}). */
    @FunctionalInterface
    public interface OnPort<T> {
        /** Starts on {@code port}; on failure, closes what it started and throws. */
        T start(int port) throws Exception;
    }

    /** Starts something on several ports probed free together (all different). */
    @FunctionalInterface
    public interface OnPorts<T> {
        /** Starts on {@code ports}; on failure, closes what it started and throws. */
        T start(List<Integer> ports) throws Exception;
    }

    /** As {@link #start(int, OnPorts)} with one port. */
    public static <T> T start(OnPort<T> start) throws Exception {
        return start(1, ports -> start.start(ports.getFirst()));
    }

    /**
     * Probes {@code count} free ports and starts on them; when the start fails because one of them was taken
     * meanwhile ({@link #lostBind}), probes again and starts again, at most {@link #TRIES} starts in all. The start
     * must close what it started before it throws. Any other failure (an assertion error included) is thrown as it
     * is, with the lost starts before it attached as suppressed.
     */
    public static <T> T start(int count, OnPorts<T> start) throws Exception {
        List<Throwable> lost = new ArrayList<>();
        while (true) {
            List<Integer> ports = probe(count);
            try {
                return start.start(ports);
            } catch (Exception | AssertionError e) { // an assertion on the start's readiness quotes a process's log
                if (!lostBind(e)) {
                    lost.forEach(e::addSuppressed);
                    throw e;
                }
                lost.add(e);
                if (lost.size() == TRIES) {
                    IllegalStateException gaveUp = new IllegalStateException("a port probed free was taken before the "
                            + "start bound it, " + TRIES + " starts in a row (the last on " + ports + ")", e);
                    lost.subList(0, lost.size() - 1).forEach(gaveUp::addSuppressed);
                    throw gaveUp;
                }
            }
        }
    }

    /**
     * A loopback port where every connect is refused, for this JVM's life: a socket bound to it that never listens
     * holds it. A port probed free and closed (the old way to name a dead origin) is only dead until someone binds
     * it, and a loopback connect to a port in the ephemeral range that nothing holds can even be given that port as
     * its own end and connect to itself; a port held so can be neither.
     */
    public static int refused() {
        return Refusing.SOCKET.getLocalPort();
    }

    private static final class Refusing {
        static final Socket SOCKET = bound();

        private static Socket bound() {
            try {
                Socket s = new Socket(); // not SO_REUSEADDR: no other socket may bind the port, listening or not
                s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
                return s;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    /** One port free at this moment, on every address; free only until someone binds it (see {@link #start}). */
    public static int probe() throws IOException {
        return probe(1).getFirst();
    }

    /**
     * {@code count} ports free at this moment, on every address, all different: they are held together while probed
     * (two probes one after the other can be given the same port, closed a moment before).
     */
    public static List<Integer> probe(int count) throws IOException {
        List<ServerSocket> held = new ArrayList<>(count);
        try {
            List<Integer> ports = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                ServerSocket s = new ServerSocket(0, 1);
                held.add(s);
                ports.add(s.getLocalPort());
            }
            return List.copyOf(ports);
        } finally {
            for (ServerSocket s : held) {
                s.close();
            }
        }
    }

    /**
     * Whether a start failed because a port was taken: a {@link BindException} in its causes (a listener in this JVM),
     * or "address already in use" in one of their messages (a child process's output quoted in the failure: the
     * gateway's jar and redis-server write it so, Go programs such as Jaeger in lower case).
     */
    public static boolean lostBind(Throwable failure) {
        Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        for (Throwable t = failure; t != null && seen.add(t); t = t.getCause()) {
            if (t instanceof BindException || (t.getMessage() != null && saysLostBind(t.getMessage()))) {
                return true;
            }
        }
        return false;
    }

    /** Whether a process's output says a bind failed because the port was taken (any case: Go writes it in lower). */
    public static boolean saysLostBind(String output) {
        return output.toLowerCase(Locale.ROOT).contains("address already in use");
    }
}
