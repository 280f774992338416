package io.loomgate.server;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.Locale;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How the gateway's sockets reach the kernel ({@code server.transport}: the main listener's and the connections to
 * origins'): the JDK's blocking sockets ({@link #JDK}),
 * or edge-triggered epoll of our own through the foreign-function API ({@link #EPOLL}: Linux, Java 22+, the module
 * {@value EpollSupport#MODULE}). {@link #AUTO} is epoll where it can run and the JDK's sockets elsewhere, with one
 * log line saying why; the configuration's default is {@link #JDK} until epoll has its soak (docs/configuration.md).
 */
public enum Transport {
    AUTO, JDK, EPOLL;

    private static final Logger log = LoggerFactory.getLogger(Transport.class);

    /** The key's value, or null when it is none of auto, jdk, epoll. */
    public static Transport parse(String text) {
        return switch (text.trim().toLowerCase(Locale.ROOT)) {
            case "auto" -> AUTO;
            case "jdk" -> JDK;
            case "epoll" -> EPOLL;
            default -> null;
        };
    }

    /** Why epoll cannot run in this JVM (not Linux, Java < 22, the module absent or failing to link), or null. */
    public static String epollUnavailableReason() {
        return EpollSupport.unavailableReason();
    }

    /**
     * What runs: AUTO becomes EPOLL where it can run, else JDK with one log line naming the reason and
     * {@code where} (the listener, or the connections to origins).
     */
    public Transport resolve(String where) {
        if (this != AUTO) {
            return this;
        }
        String why = EpollSupport.unavailableReason();
        if (why == null) {
            return EPOLL;
        }
        log.info("{}: transport auto runs on the JDK's sockets: {}", where, why);
        return JDK;
    }

    /**
     * A TCP connection on epoll to {@code address} within {@code timeoutMillis} (the upstream client's dialer when
     * the transport is {@link #EPOLL}): TCP_NODELAY and SO_KEEPALIVE on, no channel.
     *
     * @throws java.net.SocketTimeoutException when the connect timed out
     * @throws java.net.ConnectException       when it failed (refused, unreachable)
     * @throws IllegalStateException           when epoll cannot run here (the config reader refuses that first)
     */
    public static Socket connectOnEpoll(InetSocketAddress address, int timeoutMillis) throws IOException {
        return EpollSupport.get().connect(address, timeoutMillis);
    }
}
