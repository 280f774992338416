package io.loomgate.tls;

import java.security.GeneralSecurityException;
import java.util.List;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManager;

/**
 * This module's answer to loomgate-core's {@link ConscryptSupport} (listed in
 * {@code META-INF/services/io.loomgate.tls.ConscryptSupport}): hands each call to {@link ConscryptTls}, which stays
 * the only class that touches Conscrypt. Public only because {@link java.util.ServiceLoader} instantiates it.
 */
public final class ConscryptTlsSupport implements ConscryptSupport {
    @Override
    public String unavailable(int jdkFeature) {
        return ConscryptTls.unavailableReason(jdkFeature);
    }

    @Override
    public void checkCiphers(List<String> ciphers, List<String> protocols) {
        ConscryptTls.checkCiphers(ciphers, protocols);
    }

    @Override
    public Identity nativeForm(Identity loaded) {
        return ConscryptTls.nativeForm(loaded);
    }

    @Override
    public SSLContext serverContext(KeyManager[] keys, TrustManager[] trust, boolean sessionResumption)
            throws GeneralSecurityException {
        return ConscryptTls.serverContext(keys, trust, sessionResumption);
    }

    @Override
    public SSLContext clientContext(KeyManager[] keys, TrustManager[] trust) throws GeneralSecurityException {
        return ConscryptTls.clientContext(keys, trust);
    }

    @Override
    public SSLSocketFactory socketFactory(SSLContext context) {
        return ConscryptTls.socketFactory(context);
    }

    @Override
    public void configure(SSLEngine engine, boolean sessionResumption) {
        ConscryptTls.configure(engine, sessionResumption);
    }

    @Override
    public void configureClient(SSLEngine engine) {
        ConscryptTls.configureClient(engine);
    }
}
