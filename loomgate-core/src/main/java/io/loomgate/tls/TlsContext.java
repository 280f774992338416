package io.loomgate.tls;

import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.util.List;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManager;

/**
 * What each side of the gateway's TLS (the listeners' {@link ServerTls}, the origins' {@link ClientTls}) is made of:
 * the certificates and CAs read from files ({@link Material}, which a reload swaps), and the chosen provider's
 * SSLContext over them with its socket factory. The sides differ in the settings they apply to each socket.
 */
abstract class TlsContext implements Reloadable {
    final Material material;
    final SSLContext context;
    final SSLSocketFactory factory;

    TlsContext(TlsProvider provider, Material material, SSLContext context) {
        this.material = material;
        this.context = context;
        this.factory = provider == TlsProvider.CONSCRYPT ? ConscryptSupport.get().socketFactory(context)
                : context.getSocketFactory();
    }

    /** How Conscrypt makes a side's context (a server's takes more settings than a client's). */
    @FunctionalInterface
    interface ConscryptContext {
        SSLContext make(ConscryptSupport conscrypt) throws GeneralSecurityException;
    }

    /** The provider's context over these key and trust managers (either may be null: none). */
    static SSLContext context(TlsProvider provider, KeyManager[] keys, TrustManager[] trust,
                              ConscryptContext conscrypt) {
        try {
            if (provider == TlsProvider.CONSCRYPT) {
                return conscrypt.make(ConscryptSupport.get());
            }
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(keys, trust, null);
            return context;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot make a TLS context with provider " + provider, e);
        }
    }

    @Override
    public void reload() throws TlsMaterialException {
        material.reload();
    }

    @Override
    public List<Path> files() {
        return material.files();
    }

    @Override
    public List<String> subjects() {
        return material.subjects();
    }
}
