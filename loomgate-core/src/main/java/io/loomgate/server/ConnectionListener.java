package io.loomgate.server;

import java.net.InetSocketAddress;
import java.util.Locale;

/**
 * Events of client connections. Implementations must be fast, must not block and must not throw: they run on the
 * connection's own thread (or the accept loop).
 */
public interface ConnectionListener {
    ConnectionListener NOOP = new ConnectionListener() {
    };

    default void connectionOpened(InetSocketAddress remote) {
    }

    default void connectionClosed(InetSocketAddress remote, int requests) {
    }

    /** An idle keep-alive connection gave its thread up to wait in the listener's selector. On the poller's thread. */
    default void connectionParked() {
    }

    /**
     * A parked connection left the selector: it runs on a thread again, or it ends ({@link #connectionClosed}
     * follows). On the poller's thread.
     */
    default void connectionUnparked() {
    }

    /**
     * A connection accepted but closed at once, unserved, because the listener was stopping as it arrived. (At
     * max-connections nothing is refused: the listener stops accepting and clients wait in the kernel's backlog.)
     */
    default void connectionRejected(InetSocketAddress remote) {
    }

    /**
     * A TLS handshake with a client did not complete, and why; the connection ends unserved. On the connection's
     * thread, or on the write watchdog's when a deadline cut it. {@code remote} may be null (a socket already gone).
     */
    default void tlsHandshakeFailed(InetSocketAddress remote, HandshakeFailure why) {
    }

    /** Why a client's TLS handshake did not complete (the {@code reason} tag of the metric). */
    enum HandshakeFailure {
        /**
         * Refused or broken: not TLS, an old protocol, no common cipher or ALPN, a missing or untrusted client
         * certificate, or the client closed the connection during the handshake (a TCP probe on a TLS port does).
         * Also a client refused after its handshake for handshake messages the gateway does not take: a TLS 1.2
         * renegotiation, or key updates (or empty records) 33 in a row with no application data ({@code TlsRefusals}).
         */
        FAILED,
        /** Started but not done within the header timeout of its start: a slow or silent client. */
        TIMED_OUT,
        /**
         * Not started within the header timeout of the accept: no thread was free to run it in time, the process is
         * overloaded; closed without doing any of the handshake's work.
         */
        NOT_STARTED;

        /** The reason as the metric's tag value: failed, timed-out, not-started. */
        public String tag() {
            return name().toLowerCase(Locale.ROOT).replace('_', '-');
        }
    }
}
