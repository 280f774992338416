package io.loomgate.tls;

import java.io.IOException;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509ExtendedTrustManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * TLS to origins: layers a client {@link SSLSocket} over a connected TCP socket, verifies the origin's certificate
 * against the JDK's trust store plus {@code trust-certificate} and its host name (RFC 9110 §4.3.4, JSSE's "HTTPS"
 * identification), sends the host as SNI, offers ALPN {@code http/1.1}, and presents a client certificate when one
 * is configured. One SSLContext for all origins: its client session cache, keyed by host and port, lets a new
 * connection to an origin resume the session of an earlier one (an abbreviated handshake).
 */
public final class ClientTls extends TlsContext {
    private static final Logger log = LoggerFactory.getLogger(ClientTls.class);
    private final ClientTlsSettings settings;

    private ClientTls(ClientTlsSettings settings, Material material, SSLContext context) {
        super(settings.provider(), material, context);
        this.settings = settings;
    }

    public static ClientTls create(ClientTlsSettings settings) throws TlsMaterialException {
        Material.TrustBuilder trust = settings.insecure() ? Trust.Insecure::new : () -> {
            List<X509ExtendedTrustManager> members = new ArrayList<>();
            if (settings.trustCertificate() != null) {
                members.add(Trust.fromPem(settings.trustCertificate()));
            }
            members.add(Trust.jdkDefault());
            return new Trust.AnyOf(members);
        };
        List<NamedKeySource> identity = settings.identity() == null ? List.of()
                : List.of(new NamedKeySource(null, settings.identity()));
        boolean conscrypt = settings.provider() == TlsProvider.CONSCRYPT;
        settings.provider().requireAvailable();
        if (conscrypt) {
            ConscryptSupport.get().checkCiphers(settings.ciphers(), settings.protocols());
        }
        Material material = Material.load(identity,
                conscrypt ? ConscryptSupport.get()::nativeForm : Material.KeyForm.AS_LOADED, trust, settings.files());
        KeyManager[] keys = identity.isEmpty() ? null : new KeyManager[] {material.keys};
        TrustManager[] trustManagers = {material.trust};
        return new ClientTls(settings, material, context(settings.provider(), keys, trustManagers,
                c -> c.clientContext(keys, trustManagers)));
    }

    public boolean insecure() {
        return settings.insecure();
    }

    /**
     * Runs a client handshake over {@code raw} within {@code timeout} (each read of the handshake; a handshake is
     * two or three of them); throws what JSSE threw ({@link TlsFailures} names it).
     */
    public SSLSocket handshake(Socket raw, String host, int port, Duration timeout) throws IOException {
        return handshake(raw, host, port, timeout, HTTP_1_1);
    }

    /**
     * An unconnected socket to dial an origin with before {@link #handshake} layers TLS over it, a channel's either way
     * (the pool's lease reads it once without blocking: {@link #hasBufferedBytes}). For JSSE, one that reads each
     * record in one system call instead of two ({@link RecordBufferedSocket}); for Conscrypt, whose engine the gateway
     * drives itself ({@link EngineChannel}), the channel's socket adaptor: the engine encrypts into direct buffers
     * that the channel writes without a copy.
     */
    public Socket unconnectedSocket() throws IOException {
        return settings.provider() == TlsProvider.CONSCRYPT ? SocketChannel.open().socket()
                : new RecordBufferedSocket();
    }

    /** ALPN offer of an HTTP/1.1-only client. */
    public static final List<String> HTTP_1_1 = List.of("http/1.1");
    /** ALPN offer of a client that prefers HTTP/2 and falls back to HTTP/1.1. */
    public static final List<String> H2_OR_HTTP_1_1 = List.of("h2", "http/1.1");

    /**
     * As {@link #handshake(Socket, String, int, Duration)}, offering these ALPN protocols; the origin's choice is
     * the returned socket's {@code getApplicationProtocol()} (empty when it chose none). A socket of another
     * transport that can read ahead ({@link RecordReadAhead}) reads a record at a time for JSSE, as
     * {@link #unconnectedSocket()}'s does.
     *
     * <p>JSSE: its socket layered over {@code raw}. Conscrypt: its engine in client mode, driven by the gateway's
     * {@link EngineSocket}, not Conscrypt's own socket, which reads an origin's bare FIN as the end of the stream
     * just as it reads a close_notify, and so would pass a close-delimited body cut by an attacker or a crash on as
     * complete ({@link #endedWithoutCloseNotify(Socket)}). The engine is made with the origin's host and port, the
     * key of Conscrypt's client session cache, as its socket was: resumption works as before.
     */
    public SSLSocket handshake(Socket raw, String host, int port, Duration timeout, List<String> alpn)
            throws IOException {
        boolean conscrypt = settings.provider() == TlsProvider.CONSCRYPT;
        if (!conscrypt && raw instanceof RecordReadAhead r) {
            r.readAhead(RecordBufferedSocket.RECORD_BUFFER_SIZE); // JSSE takes the socket's stream as it layers
        }
        SSLSocket s;
        if (conscrypt) {
            SSLEngine engine = context.createSSLEngine(host, port);
            engine.setUseClientMode(true);
            ConscryptSupport.get().configureClient(engine);
            s = new EngineSocket(raw, new EngineChannel(engine, raw, true)); // BoringSSL encrypts into native memory
        } else {
            s = (SSLSocket) factory.createSocket(raw, host, port, true);
        }
        s.setSSLParameters(parameters(s.getSSLParameters(), host, alpn));
        int previous = raw.getSoTimeout();
        raw.setSoTimeout((int) Math.max(1, Math.min(timeout.toMillis(), Integer.MAX_VALUE)));
        try {
            s.startHandshake();
        } finally {
            if (!raw.isClosed()) {
                raw.setSoTimeout(previous);
            }
        }
        if (!conscrypt) {
            refuseRenegotiation(s, raw, host, port);
        }
        return s;
    }

    /** A dial's parameters: the configured protocols and ciphers, verification of {@code host}, SNI, ALPN. */
    private SSLParameters parameters(SSLParameters p, String host, List<String> alpn) {
        p.setProtocols(settings.protocols().toArray(String[]::new));
        if (!settings.ciphers().isEmpty()) {
            p.setCipherSuites(settings.ciphers().toArray(String[]::new));
        }
        if (!settings.insecure()) {
            p.setEndpointIdentificationAlgorithm("HTTPS");
        }
        if (!isIpLiteral(host)) {
            p.setServerNames(List.of(new SNIHostName(host)));
        }
        p.setApplicationProtocols(alpn.toArray(String[]::new));
        return p;
    }

    /**
     * Writes a ClientHello, as a dial's first flight, into memory and drops it: no socket, no origin, nothing in the
     * session cache. The gateway calls it on the start thread, where it makes this context, so that the part of a cold
     * JVM's first client handshake that needs no origin (the provider's handshake classes loaded and run interpreted,
     * the first key shares generated) is not paid inside the first dial's {@code connect-timeout}, which since session
     * 49 covers the TCP connect and the handshake together. The first dial's connect and handshake, JSSE, plain jar,
     * 2 cores at load 11-13, four starts each: 0.27-0.65 s without it, 0.12-0.37 s with it; at load ~20 without it,
     * three of eight cold first requests failed with 502 (docs/journal/2026-12-01-s50-flaky.md). A failure here only
     * leaves the first dial to pay as before: logged at debug, never thrown.
     */
    public void warmUp() {
        try {
            SSLEngine engine = context.createSSLEngine(WARM_UP_HOST, 443);
            engine.setUseClientMode(true);
            if (settings.provider() == TlsProvider.CONSCRYPT) {
                ConscryptSupport.get().configureClient(engine);
            }
            engine.setSSLParameters(parameters(engine.getSSLParameters(), WARM_UP_HOST, H2_OR_HTTP_1_1));
            ByteBuffer hello = ByteBuffer.allocate(engine.getSession().getPacketBufferSize());
            engine.beginHandshake();
            engine.wrap(ByteBuffer.allocate(0), hello);
            engine.closeOutbound();
        } catch (IOException | RuntimeException e) {
            log.debug("warming up the client TLS of {} failed; the first dial pays for it: {}", settings.provider(),
                    e.toString());
        }
    }

    /** The host the warm-up's ClientHello names (RFC 6761's reserved {@code .invalid}: never dialled). */
    private static final String WARM_UP_HOST = "warm-up.invalid";

    /**
     * Whether {@code socket}'s TLS stream, which has just read as ended, ended without the origin's close_notify (a
     * FIN or RST under TLS: a truncation, RFC 8446 §6.1, RFC 9112 §9.8), as far as the socket can tell
     * ({@link #tellsCloseNotify(Socket)}); false for any other socket.
     *
     * <p>JSSE's socket reads a bare end of the TCP stream as -1, as it reads a close_notify, unless the whole JVM
     * sets {@code com.sun.net.ssl.requireCloseNotify}; what differs is that on the bare end it shuts the socket's
     * input down itself ({@code SSLSocketImpl.handleEOF}), after a close_notify it does not: that is its sign. The
     * gateway's {@link EngineSocket} (Conscrypt upstreams) knows from its engine which end it saw.
     */
    public static boolean endedWithoutCloseNotify(Socket socket) {
        if (socket instanceof EngineSocket e) {
            return e.endedWithoutCloseNotify();
        }
        return isJsse(socket) && socket.isInputShutdown();
    }

    /**
     * Whether bytes wait on a TLS connection to an origin that no read has taken yet, asked without a read and without
     * a wait: plaintext the TLS layer has decrypted and holds, ciphertext read ahead and not yet decrypted (the record
     * buffer of {@link RecordBufferedSocket} or of another transport's socket, the engine socket's own), and bytes in
     * the kernel's receive queue under {@code raw} ({@code FIONREAD}: the JDK's and the epoll socket's
     * {@code available()}). The pool asks it after an answer without a body, where any such byte is an origin's
     * mistake ({@code PooledConnection.isHealthy}); a timed read, the other way to look, costs a timer on a virtual
     * thread. What it cannot see is a byte still on its way; a closed socket answers true.
     *
     * @param socket the TLS socket {@link #handshake} made
     * @param raw    the plain socket under it
     */
    public static boolean hasUnreadBytes(Socket socket, Socket raw) {
        try {
            if (socket instanceof EngineSocket e) {
                return e.unreadBytes() > 0;
            }
            return socket.getInputStream().available() > 0 || raw.getInputStream().available() > 0;
        } catch (IOException e) {
            return true;
        }
    }

    /**
     * Whether bytes wait on a TLS connection to an origin in the process, above the kernel: plaintext the TLS layer
     * has decrypted and holds, ciphertext read ahead and not yet decrypted ({@link RecordBufferedSocket}'s record
     * buffer, the engine socket's). No system call: the pool asks it on a lease and then reads {@code raw}'s channel
     * once without blocking, which sees the kernel's bytes and also a bare FIN or an RST ({@link #hasUnreadBytes}'s
     * {@code FIONREAD} would see the bytes only). For a {@code raw} that is a channel's socket: JSSE's over
     * {@link #unconnectedSocket()}'s, Conscrypt's engine socket over a channel's.
     *
     * @param socket the TLS socket {@link #handshake} made
     * @param raw    the plain socket under it
     */
    public static boolean hasBufferedBytes(Socket socket, Socket raw) {
        try {
            if (socket instanceof EngineSocket e) {
                return e.bufferedBytes() > 0;
            }
            return raw instanceof RecordBufferedSocket r && r.buffered() > 0
                    || socket.getInputStream().available() > 0;
        } catch (IOException e) {
            return true;
        }
    }

    /** Whether {@link #endedWithoutCloseNotify(Socket)} can tell for {@code socket}: JSSE's, or the engine socket. */
    public static boolean tellsCloseNotify(Socket socket) {
        return socket instanceof EngineSocket || isJsse(socket);
    }

    private static boolean isJsse(Socket socket) {
        return socket instanceof SSLSocket && socket.getClass().getName().startsWith("sun.security.ssl.");
    }

    /**
     * A TLS 1.2 origin may ask to renegotiate (HelloRequest) at any time, and JSSE's client does it: a full client
     * handshake in mid-connection, as often as the origin asks (ten in 0.3 s in {@code OriginRenegotiationTest}),
     * bounded only by the route's timeouts. It cannot be told to refuse a server's secure renegotiation (Envoy's
     * upstream and Go's client refuse by default), so a handshake that completes after the first ends the connection:
     * its exchange fails as the connection's end (502, or a cut after the head; an idempotent request on a reused
     * connection goes again on a new one), and the origin gets one renegotiation per connection it is dialled for,
     * which costs it no less than us. Registered after the first handshake, so only a later one calls it; the provider
     * calls it on a thread of its own, hence closing the TCP socket (no close_notify to write, no lock to take). JSSE's
     * socket only: with Conscrypt the gateway's engine loop refuses the first HelloRequest itself
     * ({@link EngineChannel}), and its {@link EngineSocket} takes no listeners (Conscrypt's own socket, used before
     * session 44, renegotiated as often as asked and never called its listener).
     */
    private static void refuseRenegotiation(SSLSocket s, Socket raw, String host, int port) {
        s.addHandshakeCompletedListener(e -> {
            log.warn("origin {}:{} renegotiated TLS: connection closed (renegotiation is refused)", host, port);
            try {
                raw.close();
            } catch (IOException ignored) {
                // closing anyway
            }
        });
    }

    /** The client session cache, for tests that check resumption. */
    public javax.net.ssl.SSLSessionContext sessions() {
        return context.getClientSessionContext();
    }

    private static boolean isIpLiteral(String host) {
        return host.indexOf(':') >= 0 || host.matches("[0-9.]+");
    }
}
