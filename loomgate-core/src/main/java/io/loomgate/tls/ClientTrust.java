package io.loomgate.tls;

import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.util.List;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManager;

/**
 * The trust of {@code upstream.ssl.trust-certificate} for a client that is not the proxy's (the {@code JwtAuth}
 * JWKS fetch, on {@link javax.net.ssl.HttpsURLConnection}): a PEM file's CAs, then the JDK's trust store, checked as
 * {@link ClientTls} checks an origin ({@link Trust.AnyOf}), so a private CA is trusted without replacing the JDK's
 * CAs as {@code -Djavax.net.ssl.trustStore} would. JSSE only; no client certificate.
 */
public final class ClientTrust {
    private ClientTrust() {
    }

    /** A socket factory trusting the CAs in {@code pem} and the JDK's; reads the file now (errors name it). */
    public static SSLSocketFactory socketFactory(Path pem) throws TlsMaterialException {
        TrustManager[] trust = {new Trust.AnyOf(List.of(Trust.fromPem(pem), Trust.jdkDefault()))};
        try {
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, trust, null);
            return context.getSocketFactory();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot make a TLS context", e);
        }
    }
}
