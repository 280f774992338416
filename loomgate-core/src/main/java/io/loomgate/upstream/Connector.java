package io.loomgate.upstream;

import io.loomgate.http.BufferPool;
import io.loomgate.http1.HttpInput;
import io.loomgate.http1.HttpOutput;
import io.loomgate.threads.Deadline;
import io.loomgate.threads.Watchdog;
import io.loomgate.threads.WatchedInputStream;
import io.loomgate.tls.ClientTls;
import io.loomgate.tls.ClientTlsSettings;
import io.loomgate.tls.TlsFailures;
import io.loomgate.tls.TlsMaterialException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import javax.net.ssl.SSLSocket;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Answers "how to dial": opens a TCP connection to one endpoint within the connect timeout, with TCP_NODELAY (heads
 * and small bodies must not wait for Nagle) and SO_KEEPALIVE (so a dead origin behind a silent NAT is found
 * eventually), and wraps it in the codec. Reports each dial to the pool listener.
 *
 * <p>Failures come out as exactly two types, so the proxy can choose its answer by type: {@link SocketTimeoutException}
 * when the connect timed out, {@link ConnectException} for everything else (refused, unreachable, unknown host). Both
 * name the endpoint. An {@code https://} endpoint adds the TLS handshake; its failure is an
 * {@link UpstreamTlsException} saying why in an operator's words, logged once per cause.
 *
 * <p>The connect timeout is one budget for the whole dial, as Envoy's {@code connect_timeout} is: the TCP connect,
 * the TLS handshake and (in {@link Http2Pool}) the wait for an HTTP/2 origin's first SETTINGS each get what the
 * stages before them left of it ({@link Dialled#deadline()}), so no request waits more than the timeout for a
 * connection to be made, however many stages the origin is slow at. Until session 49 each stage had the whole
 * timeout again. A stage that runs out keeps its own failure: a connect that did is a {@link SocketTimeoutException}
 * "connect to ... timed out", a handshake that did "TLS handshake with ... timed out".
 */
final class Connector {
    /** The codec's recycled size, so upstream connections borrow from the same pool as client ones. */
    static final int BUFFER_SIZE = BufferPool.SIZE;
    private static final Logger log = LoggerFactory.getLogger(Connector.class);

    private final Endpoint endpoint;
    private final PoolSettings settings;
    private final PoolListener listener;
    private final Dialer dialer;
    /** Handshake failure causes already logged at warn for this endpoint; cleared by a good handshake. */
    private final Set<String> reportedCauses = ConcurrentHashMap.newKeySet();

    /** Dials with the settings' {@link Dialer} (another transport's sockets), else the JDK's. */
    Connector(Endpoint endpoint, PoolSettings settings, PoolListener listener) {
        this(endpoint, settings, listener, settings.dialer() != null ? settings.dialer()
                : (address, timeout) -> dialSocket(
                        endpoint.tls() ? tls(settings).unconnectedSocket() : SocketChannel.open().socket(), address,
                        timeout));
    }

    Connector(Endpoint endpoint, PoolSettings settings, PoolListener listener, Dialer dialer) {
        this.endpoint = endpoint;
        this.settings = settings;
        this.listener = listener;
        this.dialer = dialer;
    }

    Endpoint endpoint() {
        return endpoint;
    }

    /** Dials a new connection for {@code pool}; it starts IN_USE. */
    PooledConnection connect(UpstreamPool pool, long id) throws IOException {
        long start = System.nanoTime();
        long deadline = start + settings.connectTimeout().toNanos();
        Socket raw = dial(deadline);
        Socket socket = raw;
        try {
            if (endpoint.tls()) {
                socket = handshake(raw, ClientTls.HTTP_1_1, deadline);
            }
            return wrap(pool, id, raw, socket, start);
        } catch (IOException | RuntimeException e) {
            socket.close();
            listener.connectFailed(endpoint, e);
            throw e;
        }
    }

    /**
     * Makes the HTTP/1.1 connection of {@code pool} out of a TLS connection {@link #dialHttp2} made, whose origin
     * chose {@code http/1.1} by ALPN: the connection the first request uses, rather than a second dial and handshake.
     * Counted as the dial it was ({@link PoolListener#connected}, from the dial's start), once.
     */
    PooledConnection adopt(UpstreamPool pool, long id, Dialled dialled) throws IOException {
        try {
            return wrap(pool, id, dialled.raw(), dialled.socket(), dialled.start());
        } catch (IOException | RuntimeException e) {
            dialled.socket().close();
            listener.connectFailed(endpoint, e);
            throw e;
        }
    }

    /** The codec over a connected (and for https, handshaken) socket; reports the dial made. */
    private PooledConnection wrap(UpstreamPool pool, long id, Socket raw, Socket socket, long start)
            throws IOException {
        // A plain socket is a channel: bulk bodies move through direct buffers (BodyRelay, W4). A TLS one never: JSSE's
        // socket answers getChannel() with the channel under it (RecordBufferedSocket's), and bytes moved there
        // would bypass the encryption.
        SocketChannel channel = socket == raw ? socket.getChannel() : null;
        WatchedInputStream watched = new WatchedInputStream(socket.getInputStream(), channel, raw::shutdownInput,
                Watchdog.shared());
        try {
            PooledConnection connection = new PooledConnection(pool, id, raw, socket, watched,
                    new HttpInput(watched, watched.directReader(), BUFFER_SIZE, settings.limits()),
                    new HttpOutput(socket.getOutputStream(), channel, BUFFER_SIZE));
            listener.connected(endpoint, System.nanoTime() - start);
            return connection;
        } catch (IOException | RuntimeException e) {
            watched.close();
            throw e;
        }
    }

    /**
     * A connection dialled for HTTP/2: the plain socket (which other threads close), the socket to talk on (TLS
     * over the plain one for https) and whether the origin speaks HTTP/2 on it (prior knowledge for h2c; ALPN chose
     * {@code h2} for https), when the dial started and its deadline ({@link System#nanoTime()}): what is left of the
     * connect timeout for the HTTP/2 SETTINGS wait.
     */
    record Dialled(Socket raw, Socket socket, boolean h2, long start, long deadline) {
    }

    /**
     * Dials for {@link Http2Pool}: h2c as is, https offering {@code h2, http/1.1} by ALPN. When the origin chose
     * HTTP/1.1, {@code h2} is false and the connection stays open for the endpoint's HTTP/1.1 pool to
     * {@linkplain #adopt adopt} (or the caller to close). Neither is counted as a connection made yet: an HTTP/2
     * connection is made when the origin's SETTINGS came ({@link #settled}, else {@link #settingsFailed}), an
     * HTTP/1.1 one when adopted. A failure of the connect or the handshake is counted here.
     */
    Dialled dialHttp2() throws IOException {
        long start = System.nanoTime();
        long deadline = start + settings.connectTimeout().toNanos();
        Socket raw = dial(deadline);
        try {
            raw.setSoTimeout(0);
            if (!endpoint.tls()) {
                return new Dialled(raw, raw, true, start, deadline);
            }
            SSLSocket s = handshake(raw, ClientTls.H2_OR_HTTP_1_1, deadline);
            if (!"h2".equals(s.getApplicationProtocol())) {
                log.info("upstream {}: the origin chose {} by ALPN, not h2; its requests go over HTTP/1.1", endpoint,
                        s.getApplicationProtocol() == null || s.getApplicationProtocol().isEmpty() ? "no protocol"
                                : s.getApplicationProtocol());
                return new Dialled(raw, s, false, start, deadline);
            }
            return new Dialled(raw, s, true, start, deadline);
        } catch (IOException | RuntimeException e) {
            raw.close();
            listener.connectFailed(endpoint, e);
            throw e;
        }
    }

    /** The HTTP/2 connection {@code dialled} made is up: the origin's SETTINGS came. Counted as a connection made. */
    void settled(Dialled dialled) {
        listener.connected(endpoint, System.nanoTime() - dialled.start());
    }

    /**
     * The HTTP/2 connection {@code dialled} made failed before it was up (no SETTINGS within what the connect
     * timeout left: a {@link SocketTimeoutException}, as a connect that runs out is; or the origin closed first).
     * Counted as the dial's one connect failure.
     */
    void settingsFailed(Dialled dialled, Exception cause) {
        listener.connectFailed(endpoint, cause);
    }

    /**
     * Dials for a health check: the protocol the endpoint's traffic uses. Plain for {@code http://} (HTTP/1.1) and
     * {@code h2c://} (h2), TLS for {@code https://} offering {@code h2} first by ALPN when the endpoint is HTTP/2;
     * the socket stays open whichever protocol the origin chose, and {@code h2} says which; the check counts no dial.
     */
    Dialled dialForCheck() throws IOException {
        long start = System.nanoTime();
        long deadline = start + settings.connectTimeout().toNanos();
        Socket raw = dial(deadline);
        try {
            if (!endpoint.tls()) {
                return new Dialled(raw, raw, endpoint.http2(), start, deadline);
            }
            SSLSocket s = handshake(raw, endpoint.http2() ? ClientTls.H2_OR_HTTP_1_1 : ClientTls.HTTP_1_1, deadline);
            return new Dialled(raw, s, "h2".equals(s.getApplicationProtocol()), start, deadline);
        } catch (IOException | RuntimeException e) {
            raw.close();
            throw e;
        }
    }

    /**
     * The TLS handshake within what is left of the dial's budget. Each read of the handshake is bounded by what is left
     * (the socket's read timeout), and the handshake as a whole by the shared {@link Watchdog}, which closes the plain
     * socket at the deadline: an origin that sends a record now and then cannot stretch the handshake past it either.
     */
    private SSLSocket handshake(Socket raw, java.util.List<String> alpn, long deadline) throws IOException {
        ClientTls tls = tls(settings);
        long left = deadline - System.nanoTime();
        Deadline whole = left > 0 ? Watchdog.shared().deadline(() -> closeQuietly(raw)) : null;
        boolean expired = false;
        try {
            if (whole == null) {
                throw new SocketTimeoutException("no time left for the handshake");
            }
            whole.armAt(deadline);
            SSLSocket s;
            try {
                s = tls.handshake(raw, endpoint.host(), endpoint.port(), Duration.ofNanos(left), alpn);
            } finally {
                expired = whole.disarm();
            }
            if (expired) { // it completed as the watchdog closed the socket: the socket is gone
                throw new SocketTimeoutException("handshake completed as the deadline passed");
            }
            if (!reportedCauses.isEmpty()) {
                reportedCauses.clear();
            }
            return s;
        } catch (IOException e) {
            raw.close();
            if (e instanceof SocketTimeoutException || expired) {
                SocketTimeoutException t = new SocketTimeoutException("TLS handshake with " + endpoint
                        + " timed out after " + settings.connectTimeout().toMillis() + "ms (the connect timeout, "
                        + "for the connect and the handshake together)");
                t.initCause(e);
                throw t;
            }
            String why = TlsFailures.describe(endpoint.host(), e);
            if (reportedCauses.add(TlsFailures.cause(e))) {
                log.warn("upstream {}: {} (logged once until a handshake succeeds; each request answered 502)",
                        endpoint, why);
            } else {
                log.debug("upstream {}: {}", endpoint, why);
            }
            throw new UpstreamTlsException(endpoint + ": " + why, e);
        } finally {
            if (whole != null) {
                whole.close();
            }
        }
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // the handshake ends either way
        }
    }

    /** The origin TLS of these settings: {@code upstream.ssl}'s, or the JDK defaults'. */
    private static ClientTls tls(PoolSettings settings) {
        return settings.tls() != null ? settings.tls() : DefaultTls.INSTANCE;
    }

    /** The JDK's trust store only, made when the first https endpoint without {@code upstream.ssl} dials. */
    private static final class DefaultTls {
        static final ClientTls INSTANCE = create();

        private static ClientTls create() {
            try {
                return ClientTls.create(ClientTlsSettings.DEFAULTS);
            } catch (TlsMaterialException e) {
                throw new IllegalStateException(e);
            }
        }
    }

    /** The TCP connect, within the dial's budget (all of it: nothing came before). */
    private Socket dial(long deadline) throws IOException {
        // An address DnsRefresh resolved, or (refresh off) the name looked up on every dial, through the JDK's cache.
        InetSocketAddress address = endpoint.socketAddress();
        IOException failure;
        if (address.isUnresolved()) {
            failure = new ConnectException("connect to " + endpoint + " failed: unknown host " + endpoint.host());
        } else {
            try {
                return dialer.dial(address, millisLeft(deadline));
            } catch (SocketTimeoutException e) {
                failure = new SocketTimeoutException("connect to " + endpoint + " timed out after "
                        + settings.connectTimeout().toMillis() + "ms");
                failure.initCause(e);
            } catch (IOException e) {
                failure = new ConnectException("connect to " + endpoint + " failed: " + e.getMessage());
                failure.initCause(e);
            }
        }
        listener.connectFailed(endpoint, failure);
        throw failure;
    }

    private static int millisLeft(long deadline) {
        // At least 1 ms: 0 would mean "wait forever" to Socket.connect. Rounded up: the connect, first, gets the whole
        // timeout as configured, not a millisecond less for the nanoseconds since the deadline was set.
        long left = Math.ceilDiv(deadline - System.nanoTime(), 1_000_000L);
        return (int) Math.max(1, Math.min(left, Integer.MAX_VALUE));
    }

    /** Connects {@code socket}: a plain one, or for https one JSSE reads a record at a time from. */
    private static Socket dialSocket(Socket socket, InetSocketAddress address, int timeoutMillis) throws IOException {
        try {
            socket.setTcpNoDelay(true);
            socket.setKeepAlive(true);
            socket.connect(address, timeoutMillis);
            return socket;
        } catch (IOException | RuntimeException e) {
            socket.close();
            throw e;
        }
    }
}
