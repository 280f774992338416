package io.loomgate.tls;

import java.security.GeneralSecurityException;
import java.util.List;
import java.util.Optional;
import java.util.ServiceLoader;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManager;

/**
 * What the listeners and the upstream client need from Conscrypt, which lives in the optional module
 * {@value #MODULE} (so an embedding of loomgate-core carries neither Conscrypt nor its native libraries). The module
 * supplies the one implementation, found with {@link ServiceLoader} on Loomgate's class loader; without it,
 * {@code provider: conscrypt} is refused by name ({@link #unavailableReason(int)}).
 */
interface ConscryptSupport {
    /** The Maven module (artifact id) that implements this. */
    String MODULE = "loomgate-conscrypt";

    /** Why provider conscrypt cannot run in this JVM ({@code jdkFeature} is its version), or null when it can. */
    String unavailable(int jdkFeature);

    /** Refuses a {@code ciphers} list Conscrypt would not honour, saying what to write instead. */
    void checkCiphers(List<String> ciphers, List<String> protocols);

    /** The identity with its private key held natively by BoringSSL, where Conscrypt can make such a key. */
    Identity nativeForm(Identity loaded);

    SSLContext serverContext(KeyManager[] keys, TrustManager[] trust, boolean sessionResumption)
            throws GeneralSecurityException;

    SSLContext clientContext(KeyManager[] keys, TrustManager[] trust) throws GeneralSecurityException;

    /** The context's socket factory, making engine sockets only. */
    SSLSocketFactory socketFactory(SSLContext context);

    /** Per-engine settings SSLParameters cannot carry (a listener's engine). */
    void configure(SSLEngine engine, boolean sessionResumption);

    /** Per-engine settings SSLParameters cannot carry, for an engine in client mode (a connection to an origin). */
    void configureClient(SSLEngine engine);

    /** Why provider conscrypt cannot run here: its module is absent, or it says why; null when it can. */
    static String unavailableReason(int jdkFeature) {
        if (Found.SUPPORT.isPresent()) {
            return Found.SUPPORT.get().unavailable(jdkFeature);
        }
        return "provider conscrypt needs the module " + MODULE + " (Conscrypt), which is not on the class path: add "
                + "io.loomgate:" + MODULE + " beside loomgate-core, or use provider: jdk";
    }

    /**
     * The implementation.
     *
     * @throws IllegalStateException when {@value #MODULE} is absent (the config reader has refused such a config
     *                               already, naming its key)
     */
    static ConscryptSupport get() {
        return Found.SUPPORT.orElseThrow(() -> new IllegalStateException(unavailableReason(Runtime.version()
                .feature())));
    }

    /** Looked up once, on first use. */
    final class Found {
        private Found() {
        }

        static final Optional<ConscryptSupport> SUPPORT = ServiceLoader.load(ConscryptSupport.class,
                ConscryptSupport.class.getClassLoader()).findFirst();
    }
}
