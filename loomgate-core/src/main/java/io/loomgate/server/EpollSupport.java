package io.loomgate.server;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Locale;
import java.util.Optional;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;

/**
 * What a listener and the connections to origins need from the epoll transport, which lives in the optional module
 * {@value #MODULE} (compiled for Java 22: the foreign-function API), so that loomgate-core stays on Java 21 and
 * carries no native code. The module
 * supplies the one implementation, found with {@link ServiceLoader} only on Linux with Java 22 or later (on an older
 * JDK its classes would not even load); without it, {@code transport: epoll} is refused by name.
 */
interface EpollSupport {
    /** The Maven module (artifact id) that implements this. */
    String MODULE = "loomgate-epoll";

    /** Why it cannot run here (the libc calls did not link), or null when it can. */
    String unavailable();

    /**
     * A listening socket bound to {@code address}, whose {@link ServerSocket#accept()} returns sockets with no
     * channel (their idle connections park through {@link #whenReadable}, not in the JDK's selector) and whose
     * streams honour
     * {@code setSoTimeout}, {@code shutdownInput} (the watchdog's cut) and {@code close} from another thread.
     */
    ServerSocket listen(InetSocketAddress address, int backlog) throws IOException;

    /**
     * A socket connected to {@code address} within {@code timeoutMillis}, TCP_NODELAY and SO_KEEPALIVE on, with no
     * channel and streams as {@link #listen}'s sockets have; {@link java.net.SocketTimeoutException} when the connect
     * timed out, {@link java.net.ConnectException} when it failed.
     */
    Socket connect(InetSocketAddress address, int timeoutMillis) throws IOException;

    /**
     * Runs {@code then} once, when {@code socket} (one of {@link #listen}'s) is readable, at its end or in error: on
     * the poller's thread, or at once on the caller's when it is so already. How an idle connection waits with no
     * thread ({@link EpollIdleConnections}); {@code then} must be quick (it starts a thread or ends the connection).
     *
     * @throws IllegalArgumentException when the socket is not this transport's
     */
    void whenReadable(Socket socket, Runnable then);

    /**
     * One write of {@code bytes} that never waits: how many went out (fewer, or 0, when the send buffer is full).
     *
     * @throws IllegalArgumentException when the socket is not this transport's
     */
    int writeNow(Socket socket, byte[] bytes) throws IOException;

    /** Why epoll cannot run here, or null when it can. */
    static String unavailableReason() {
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        if (!os.startsWith("linux")) {
            return "epoll is Linux's (this is " + System.getProperty("os.name") + ")";
        }
        int feature = Runtime.version().feature();
        if (feature < 22) {
            return "epoll needs Java 22 or later (the foreign-function API); this is Java " + feature;
        }
        if (Found.SUPPORT.isEmpty()) {
            return "epoll needs the module " + MODULE + ", which is not on the class path: add io.loomgate:" + MODULE
                    + " beside loomgate-core, or use transport: jdk";
        }
        return Found.SUPPORT.get().unavailable();
    }

    /**
     * The implementation.
     *
     * @throws IllegalStateException when it cannot run here (the config reader has refused such a config already)
     */
    static EpollSupport get() {
        String why = unavailableReason();
        if (why != null) {
            throw new IllegalStateException(why);
        }
        return Found.SUPPORT.orElseThrow();
    }

    /** Looked up once, on first use, and only where its classes (Java 22) can load. */
    final class Found {
        private Found() {
        }

        static final Optional<EpollSupport> SUPPORT = find();

        private static Optional<EpollSupport> find() {
            if (Runtime.version().feature() < 22) {
                return Optional.empty();
            }
            try {
                return ServiceLoader.load(EpollSupport.class, EpollSupport.class.getClassLoader()).findFirst();
            } catch (ServiceConfigurationError | LinkageError e) {
                return Optional.empty();
            }
        }
    }
}
