package io.loomgate.tls;

import java.io.IOException;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * TLS for one listener: turns an accepted TCP socket into a server-side {@link SSLSocket} with the listener's
 * protocols, ciphers, client-auth and ALPN, presenting the certificate the client's SNI name picks. Certificates are
 * {@link Reloadable}: a reload changes what new handshakes get and leaves open connections alone.
 *
 * <p>The TLS socket is an {@link EngineSocket}: the provider's engine (JSSE's or Conscrypt's) driven by the gateway's
 * own loop over the accepted socket (its channel on the JDK's sockets, its streams on epoll's), which lets an idle
 * connection park without a thread or buffers and refuses a client's TLS 1.2 renegotiation. The caller keeps the
 * accepted socket: closing (or shutting down input on) it is how deadlines and drain end a TLS connection without
 * waiting for any TLS lock.
 */
public final class ServerTls extends TlsContext {
    /** JDK property (JDK 21+) for the number of TLS 1.3 session tickets a server sends; 0 turns them off. */
    static final String TICKET_COUNT_PROPERTY = "jdk.tls.server.newSessionTicketCount";

    /** As made, with the certificates of the last {@link #replaceCertificates}. */
    private volatile ServerTlsSettings settings;
    private final SSLParameters parameters;
    private final EngineSettings engineSettings;

    private ServerTls(ServerTlsSettings settings, Material material, SSLContext context) {
        super(settings.provider(), material, context);
        this.settings = settings;
        this.parameters = parameters(settings, context);
        this.engineSettings = new EngineSettings(parameters, context);
    }

    /**
     * Loads the certificates and builds the context.
     *
     * @throws TlsMaterialException naming the file that cannot be used
     * @throws IllegalArgumentException for a cipher suite or protocol this JDK does not have
     */
    public static ServerTls create(ServerTlsSettings settings) throws TlsMaterialException {
        if (!settings.sessionResumption() && System.getProperty(TICKET_COUNT_PROPERTY) == null) {
            // JVM-wide and read once, when JSSE first configures itself: set before any SSLContext is made.
            System.setProperty(TICKET_COUNT_PROPERTY, "0");
        }
        settings.provider().requireAvailable();
        Material material = Material.load(settings.certificates(),
                settings.provider() == TlsProvider.CONSCRYPT ? ConscryptSupport.get()::nativeForm
                        : Material.KeyForm.AS_LOADED,
                settings.trustCertificate() == null ? null : () -> Trust.fromPem(settings.trustCertificate()),
                settings.files());
        KeyManager[] keys = {material.keys};
        TrustManager[] trust = material.trust == null ? null : new TrustManager[] {material.trust};
        if (settings.provider() == TlsProvider.CONSCRYPT) {
            ConscryptSupport.get().checkCiphers(settings.ciphers(), settings.protocols());
        }
        return new ServerTls(settings, material, context(settings.provider(), keys, trust,
                c -> c.serverContext(keys, trust, settings.sessionResumption())));
    }

    private static SSLParameters parameters(ServerTlsSettings s, SSLContext context) {
        SSLParameters supported = context.getSupportedSSLParameters();
        SSLParameters p = context.getDefaultSSLParameters();
        p.setProtocols(s.protocols().toArray(String[]::new));
        if (!s.ciphers().isEmpty()) {
            List<String> known = Arrays.asList(supported.getCipherSuites());
            for (String c : s.ciphers()) {
                if (!known.contains(c)) {
                    throw new IllegalArgumentException("unknown cipher suite '" + c + "' (this JDK knows e.g. "
                            + String.join(", ", Arrays.asList(p.getCipherSuites()).subList(0,
                            Math.min(4, p.getCipherSuites().length))) + ")");
                }
            }
            p.setCipherSuites(s.ciphers().toArray(String[]::new));
        } else {
            p.setCipherSuites(modernDefaults(p.getCipherSuites()));
        }
        switch (s.clientAuth()) {
            case NEED -> p.setNeedClientAuth(true);
            case WANT -> p.setWantClientAuth(true);
            case NONE -> p.setNeedClientAuth(false);
        }
        p.setApplicationProtocols(s.applicationProtocols().toArray(String[]::new));
        p.setUseCipherSuitesOrder(true);
        return p;
    }

    /**
     * The JDK's enabled suites without the CBC ones of TLS 1.2 (testssl.sh calls them obsolete; Mozilla's
     * "intermediate" profile has none): TLS 1.3's suites and TLS 1.2's (EC)DHE with AES-GCM or ChaCha20-Poly1305.
     * Within each key exchange AES-128-GCM comes before AES-256-GCM, as Mozilla's profiles and Go's TLS order them
     * (the JDK puts AES-256 first): as safe for TLS's purposes, and cheaper for every connection: 10 AES rounds per
     * block instead of 14, SHA-256 instead of SHA-384 in TLS 1.3's key schedule, and about 0.3 KB less key schedule
     * and secrets kept while the connection lives.
     */
    static String[] modernDefaults(String[] jdkEnabled) {
        List<String> modern = new ArrayList<>(Arrays.stream(jdkEnabled)
                .filter(c -> c.contains("_GCM_") || c.contains("CHACHA20") || c.endsWith("_SCSV"))
                .toList());
        for (int i = 0; i < modern.size(); i++) {
            String suite = modern.get(i);
            int aes128 = modern.indexOf(suite.replace("_AES_256_GCM_SHA384", "_AES_128_GCM_SHA256"));
            if (aes128 > i) {
                modern.set(i, modern.get(aes128));
                modern.set(aes128, suite);
            }
        }
        return modern.toArray(String[]::new);
    }

    private static final Logger log = LoggerFactory.getLogger(ServerTls.class);
    /** The name the warm-up's ClientHello asks for (RFC 6761's reserved {@code .invalid}). */
    private static final String WARM_UP_HOST = "warm-up.invalid";

    /**
     * Runs the server's side of one handshake in memory, on the calling thread (the start's, before the listener
     * accepts): a ClientHello naming a host by SNI, with ALPN, as browsers and most clients send, consumed by an
     * engine made as {@link #engineSocket} makes them, and the server's first flight (its key share, certificate and
     * signature) written. No socket, nothing kept. The first handshakes otherwise initialise the classes of that path
     * themselves, and a virtual thread that waits for another thread's class initialisation stays pinned to its
     * carrier on JDK 25: a burst of 90 first TLS connections (JSSE, 2 cores, load 10-18, session 56) pinned both
     * carriers for up to 1.25 s (the key share's algorithm check linking a pattern switch,
     * {@code MethodHandleImpl$ArrayAccessor}), 611 ms ({@code java.net.IDN}, which SNI's host name needs), 258 ms
     * ({@code SSLExtension}) and 211 ms ({@code SNIHostName}), every connection of the gateway waiting meanwhile.
     * A failure here only leaves the first handshakes to pay as before: logged at debug, never thrown.
     */
    public void warmUp() {
        boolean conscrypt = settings.provider() == TlsProvider.CONSCRYPT;
        try {
            SSLEngine client = context.createSSLEngine(WARM_UP_HOST, 443);
            client.setUseClientMode(true);
            if (conscrypt) {
                ConscryptSupport.get().configureClient(client);
            }
            SSLParameters asked = client.getSSLParameters();
            asked.setServerNames(List.of(new SNIHostName(WARM_UP_HOST)));
            asked.setApplicationProtocols(new String[] {"h2", "http/1.1"});
            client.setSSLParameters(asked);
            SSLEngine server = conscrypt ? context.createSSLEngine("127.0.0.1", 443) : context.createSSLEngine();
            server.setUseClientMode(false);
            engineSettings.applyTo(server);
            if (conscrypt) {
                ConscryptSupport.get().configure(server, settings.sessionResumption());
            }
            ByteBuffer empty = ByteBuffer.allocate(0);
            ByteBuffer hello = ByteBuffer.allocate(client.getSession().getPacketBufferSize());
            client.beginHandshake();
            client.wrap(empty, hello);
            hello.flip();
            server.beginHandshake();
            server.unwrap(hello, ByteBuffer.allocate(server.getSession().getApplicationBufferSize()));
            ByteBuffer flight = ByteBuffer.allocate(4 * server.getSession().getPacketBufferSize());
            for (int i = 0; i < 16; i++) { // the delegated tasks, then the records of the server's first flight
                for (Runnable task; (task = server.getDelegatedTask()) != null; ) {
                    task.run();
                }
                if (server.getHandshakeStatus() != SSLEngineResult.HandshakeStatus.NEED_WRAP
                        && server.getHandshakeStatus() != SSLEngineResult.HandshakeStatus.NEED_TASK) {
                    break;
                }
                if (server.getHandshakeStatus() == SSLEngineResult.HandshakeStatus.NEED_WRAP) {
                    flight.clear();
                    server.wrap(empty, flight);
                }
            }
            client.closeOutbound();
            server.closeOutbound();
        } catch (IOException | RuntimeException e) {
            log.debug("warming up the server TLS of {} failed; the first handshakes pay for it: {}",
                    settings.provider(), e.toString());
        }
    }

    /**
     * Puts TLS over an accepted socket and runs the handshake on the calling thread. The caller bounds it (by
     * closing {@code raw} when its deadline passes). With session resumption off, the session is invalidated at
     * once, so TLS 1.2 session ids cannot be resumed either (TLS 1.3 tickets are off via
     * {@value #TICKET_COUNT_PROPERTY}).
     */
    public SSLSocket handshake(Socket raw) throws IOException {
        SSLSocket s = engineSocket(raw);
        s.startHandshake();
        if (!settings.sessionResumption()) {
            s.getSession().invalidate();
        }
        return s;
    }

    /**
     * The provider's engine over the accepted socket (see {@link EngineSocket} for why not the provider's socket),
     * whatever its transport: an epoll socket (no channel) is read and written through its streams. Until session 47
     * a socket with no channel got the provider's own socket layered over it instead, and JSSE's server socket
     * renegotiates TLS 1.2 whenever the client asks (a full handshake's CPU each time, at no cost to the client),
     * which the engine loop refuses ({@link EngineChannel}). Conscrypt's engine is made with the peer's address as
     * its host, as text: without a host name, Conscrypt looks up the InetAddress's "original host name" by
     * reflection in every handshake, which the JDK refuses with an exception (a few percent of a handshake).
     */
    private SSLSocket engineSocket(Socket raw) throws IOException {
        boolean conscrypt = settings.provider() == TlsProvider.CONSCRYPT;
        SSLEngine e = conscrypt ? context.createSSLEngine(peerAddress(raw), raw.getPort()) : context.createSSLEngine();
        e.setUseClientMode(false);
        engineSettings.applyTo(e);
        if (conscrypt) {
            ConscryptSupport.get().configure(e, settings.sessionResumption());
        }
        return new EngineSocket(raw, new EngineChannel(e, raw, conscrypt)); // BoringSSL encrypts into native memory
    }

    /**
     * {@code plain} as the TLS records the connection would write, for the caller to write itself: the GOAWAY of an
     * idle HTTP/2 connection parked on epoll, sent by the idle poller with one send that never waits. The socket
     * must be one {@link #handshake} returned.
     */
    public static byte[] sealed(SSLSocket socket, byte[] plain) throws IOException {
        if (!(socket instanceof EngineSocket e)) {
            throw new IllegalArgumentException("not a listener's TLS socket: " + socket.getClass().getName());
        }
        return e.sealed(plain);
    }

    /**
     * Why the client was refused after the handshake on {@code socket} (one {@link #handshake} returned): a TLS 1.2
     * renegotiation, or more than {@value PostHandshakeRefusals#MAX_RECORDS_WITHOUT_DATA} records without
     * application data in a row (TLS 1.3 key updates, empty records); null when it was not, or for another socket.
     */
    public static String refusal(SSLSocket socket) {
        return socket instanceof EngineSocket e ? e.refusal() : null;
    }

    /** What picks and hands out the certificates (for tests in this package). */
    SniKeyManager keyManager() {
        return material.keys;
    }

    private static String peerAddress(Socket raw) {
        java.net.InetAddress address = raw.getInetAddress();
        return address == null ? null : address.getHostAddress();
    }

    public ServerTlsSettings settings() {
        return settings;
    }

    /** The enabled protocols, for logs. */
    public List<String> protocols() {
        return settings.protocols();
    }

    /**
     * Serves the certificates of {@code next} to new handshakes from now on, and watches their files (a live reload
     * that names other certificate or key files): all or nothing, open connections untouched. Everything else in
     * the settings is fixed when the listener is made, so {@code next} must differ from these settings in its
     * certificates only.
     *
     * @throws TlsMaterialException     naming the file that cannot be used; the certificates in use stay
     * @throws IllegalArgumentException when {@code next} changes more than the certificates
     */
    public void replaceCertificates(ServerTlsSettings next) throws TlsMaterialException {
        ServerTlsSettings now = settings;
        if (!next.withCertificates(now.certificates()).equals(now)) {
            throw new IllegalArgumentException("only the certificates of a TLS listener can change while it runs");
        }
        material.replace(next.certificates(), next.files());
        settings = next;
    }
}
