package io.loomgate.tls;

import java.nio.ByteBuffer;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.Provider;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManager;
import org.conscrypt.AllocatedBuffer;
import org.conscrypt.BufferAllocator;
import org.conscrypt.Conscrypt;

/**
 * The only class that touches Conscrypt, so the JDK provider never loads it (nor its native library).
 *
 * <p>Conscrypt is used as a private {@link Provider} instance handed to {@link SSLContext#getInstance(String,
 * Provider)}; it is never installed JVM-wide, so nothing else in the gateway (Redis, JWKS fetches, and the listeners
 * or the upstream client when their own {@code provider} is {@code jdk}) changes implementation behind our back.
 *
 * <p>A listener drives Conscrypt's {@link SSLEngine} over the accepted channel with its own loop ({@link
 * EngineChannel}), as it drives JSSE's, and so does the upstream client over its connection to an origin (client
 * mode: the loop knows a close_notify from a bare FIN, which Conscrypt's socket does not tell), on the JDK's sockets
 * and on epoll's (through the socket's streams, since session 47). Where Conscrypt's own socket is made (the
 * context's socket factory), it is always the engine socket
 * ({@code ConscryptEngineSocket}: BoringSSL works on byte buffers, and the reads and writes are ordinary Java socket
 * streams, which park a virtual thread). Never the file-descriptor socket, which does blocking I/O inside native code
 * and so holds its carrier for as long as a client stalls.
 */
final class ConscryptTls {
    private ConscryptTls() {
    }

    /** Loaded on first use only: creating it loads the native library. */
    private static final class Holder {
        static final Provider PROVIDER = Conscrypt.newProvider();
    }

    static String unavailableReason(int jdkFeature) {
        if (jdkFeature < TlsProvider.CONSCRYPT_MIN_JDK) {
            return "provider conscrypt needs JDK " + TlsProvider.CONSCRYPT_MIN_JDK + " or newer (this is JDK "
                    + jdkFeature + "): its socket blocks inside synchronized, which pins virtual threads' carriers"
                    + " before JEP 491; use provider: jdk";
        }
        try {
            if (!Conscrypt.isAvailable()) {
                Conscrypt.checkAvailability();
            }
            return null;
        } catch (Throwable t) { // UnsatisfiedLinkError, NoClassDefFoundError: the native library does not load
            Throwable root = t;
            while (root.getCause() != null) {
                root = root.getCause();
            }
            return "provider conscrypt is not available on this platform (its native library did not load: "
                    + root + "); use provider: jdk";
        }
    }

    /** BoringSSL's TLS 1.3 suites: always all enabled, whatever the socket is told (Conscrypt drops the names). */
    static final List<String> TLS13_SUITES = List.of("TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384",
            "TLS_CHACHA20_POLY1305_SHA256");

    /**
     * Refuses a {@code ciphers} list Conscrypt would not honour: with TLS 1.3 enabled, one that names some but not
     * all of TLS 1.3's suites (JSSE would narrow TLS 1.3 to them; BoringSSL would silently enable all three).
     *
     * @throws IllegalArgumentException saying what to write instead
     */
    static void checkCiphers(List<String> ciphers, List<String> protocols) {
        if (ciphers.isEmpty() || !protocols.contains("TLSv1.3")) {
            return;
        }
        List<String> named = TLS13_SUITES.stream().filter(ciphers::contains).toList();
        if (named.size() != TLS13_SUITES.size()) {
            throw new IllegalArgumentException("with provider conscrypt and TLSv1.3 enabled, ciphers must name all"
                    + " three TLS 1.3 suites " + TLS13_SUITES + " (BoringSSL cannot narrow TLS 1.3), got " + named
                    + "; list them all, or use provider: jdk");
        }
    }

    /**
     * The identity with its private key re-made by Conscrypt's own {@link KeyFactory}, so BoringSSL holds it as a
     * native key from now on. Handed a JDK key, Conscrypt parses its PKCS#8 bytes into a new native key in every
     * handshake (for an EC key that includes computing the public point, which the JDK's encoding leaves out), and
     * drops it for the garbage collector's finalization. A key type Conscrypt's factory does not make stays as it
     * was (and is converted per handshake, as before).
     */
    static Identity nativeForm(Identity loaded) {
        PrivateKey key = loaded.key();
        if (key.getClass().getName().startsWith("org.conscrypt.") || !"PKCS#8".equals(key.getFormat())
                || key.getEncoded() == null) {
            return loaded;
        }
        try {
            PrivateKey converted = KeyFactory.getInstance(key.getAlgorithm(), Holder.PROVIDER)
                    .generatePrivate(new PKCS8EncodedKeySpec(key.getEncoded()));
            return new Identity(loaded.chain(), converted);
        } catch (GeneralSecurityException e) {
            return loaded; // e.g. EdDSA or RSASSA-PSS: no factory for it here
        }
    }

    static SSLContext serverContext(KeyManager[] keys, TrustManager[] trust, boolean sessionResumption)
            throws GeneralSecurityException {
        SSLContext context = SSLContext.getInstance("TLS", Holder.PROVIDER);
        context.init(keys, trust, null);
        if (!sessionResumption) {
            // TLS 1.2 session ids: BoringSSL keeps a server-side cache; with size 1 and the session invalidated after
            // each handshake nothing is left to resume. TLS 1.3 tickets are off per socket (configure).
            context.getServerSessionContext().setSessionCacheSize(1);
        }
        return context;
    }

    /**
     * A client context for origins: its session cache, keyed by host and port, resumes sessions as JSSE's does. The
     * trust managers are the JDK's (and ours), called by Conscrypt with the socket, so the host name is checked the
     * same way as with JSSE.
     */
    static SSLContext clientContext(KeyManager[] keys, TrustManager[] trust) throws GeneralSecurityException {
        SSLContext context = SSLContext.getInstance("TLS", Holder.PROVIDER);
        context.init(keys, trust, null);
        return context;
    }

    static SSLSocketFactory socketFactory(SSLContext context) {
        SSLSocketFactory factory = context.getSocketFactory();
        Conscrypt.setUseEngineSocket(factory, true);
        return factory;
    }

    /**
     * Per-engine settings SSLParameters cannot carry, for a listener's engine: session tickets, and where the engine
     * copies heap bytes for BoringSSL (see {@link LentDirectBuffers}).
     */
    static void configure(SSLEngine engine, boolean sessionResumption) {
        if (!Conscrypt.isConscrypt(engine)) {
            throw new IllegalStateException("expected a Conscrypt engine, got " + engine.getClass().getName());
        }
        Conscrypt.setUseSessionTickets(engine, sessionResumption);
        Conscrypt.setBufferAllocator(engine, LentDirectBuffers.INSTANCE);
    }

    /**
     * An origin connection's engine: copies through the same lent direct buffers as a listener's. Session tickets are
     * left at Conscrypt's client default, as its socket had them (TLS 1.3 resumes by its own tickets either way).
     */
    static void configureClient(SSLEngine engine) {
        if (!Conscrypt.isConscrypt(engine)) {
            throw new IllegalStateException("expected a Conscrypt engine, got " + engine.getClass().getName());
        }
        Conscrypt.setBufferAllocator(engine, LentDirectBuffers.INSTANCE);
    }

    /**
     * The direct buffers Conscrypt's engine copies heap bytes through (BoringSSL reads and writes native memory),
     * lent for one wrap or unwrap and given back at its end. Without an allocator, each engine makes a 16.7 KB
     * direct buffer of its own at its first copy and keeps it for the connection's life, idle or not. Bounded like
     * {@link RecordBuffers}: an empty pool allocates, a full one drops the buffer. A lent buffer still holds the
     * last call's bytes (plaintext, for some calls) when it comes back; its next borrower only reads what it wrote.
     */
    private static final class LentDirectBuffers extends BufferAllocator {
        static final LentDirectBuffers INSTANCE = new LentDirectBuffers();

        private final ArrayBlockingQueue<Lent> free = new ArrayBlockingQueue<>(RecordBuffers.CAPACITY);

        @Override
        public AllocatedBuffer allocateDirectBuffer(int capacity) {
            if (capacity > RecordBuffers.SIZE) {
                return AllocatedBuffer.wrap(ByteBuffer.allocateDirect(capacity));
            }
            Lent lent = free.poll();
            if (lent == null) {
                lent = new Lent(ByteBuffer.allocateDirect(RecordBuffers.SIZE));
            }
            lent.buffer.clear();
            return lent;
        }

        /** One pooled buffer; the engine releases it once, at the end of the call that borrowed it. */
        private final class Lent extends AllocatedBuffer {
            private final ByteBuffer buffer;

            Lent(ByteBuffer buffer) {
                this.buffer = buffer;
            }

            @Override
            public ByteBuffer nioBuffer() {
                return buffer;
            }

            @Override
            public AllocatedBuffer release() {
                free.offer(this);
                return this;
            }
        }
    }
}
