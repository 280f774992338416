package io.loomgate.tls;

import java.net.Socket;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedTrustManager;

/** Builds the JDK's PKIX trust managers from PEM CA files and the JDK's own trust store. */
final class Trust {
    private Trust() {
    }

    /** Trusts exactly the CA certificates in this PEM file. */
    static X509ExtendedTrustManager fromPem(Path file) throws TlsMaterialException {
        List<X509Certificate> cas = Pem.certificates(file);
        try {
            KeyStore ks = KeyStore.getInstance(KeyStore.getDefaultType());
            ks.load(null, null);
            for (int i = 0; i < cas.size(); i++) {
                ks.setCertificateEntry("ca-" + i, cas.get(i));
            }
            return pkix(ks);
        } catch (GeneralSecurityException | java.io.IOException e) {
            throw new TlsMaterialException(file, "cannot build a trust store from it: " + e);
        }
    }

    /** The JDK's default trust store (cacerts, or javax.net.ssl.trustStore). */
    static X509ExtendedTrustManager jdkDefault() {
        try {
            return pkix(null);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("the JDK's default trust store cannot be read", e);
        }
    }

    private static X509ExtendedTrustManager pkix(KeyStore ks) throws GeneralSecurityException {
        TrustManagerFactory f = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        f.init(ks);
        for (TrustManager tm : f.getTrustManagers()) {
            if (tm instanceof X509ExtendedTrustManager x) {
                return x;
            }
        }
        throw new GeneralSecurityException("no X509ExtendedTrustManager from " + f.getAlgorithm());
    }

    /** One of a trust manager's checks, with the arguments it was asked with, to put to a trust manager. */
    interface Check {
        void run(X509ExtendedTrustManager tm) throws CertificateException;
    }

    /**
     * A trust manager whose six checks (of a client's or a server's chain, with a socket, an engine or neither) all
     * go through {@link #check}: the trust managers below differ only in where a check goes.
     */
    abstract static class Funnel extends X509ExtendedTrustManager {
        abstract void check(Check check) throws CertificateException;

        /**
         * Refuses a chain longer than JSSE's own limit for its side before any check sees it. JSSE applies the limit
         * itself while it reads the Certificate message; BoringSSL (Conscrypt) has none but the message's size (100
         * KB) and hands the whole chain to the JDK's PKIX check, whose path builder tries every certificate naming the
         * issuer it looks for: a client's chain of 240 self-signed certificates all naming the listener's CA, under a
         * leaf it did not sign, cost the gateway 370-400 MB of allocation and 0.5-1.6 s of CPU per handshake, before
         * any authentication (journal 2026-12-02-s59-hostile10). One limit for both providers, and one knob.
         */
        private static void refuseLong(X509Certificate[] chain, int max, String whose, String property)
                throws CertificateException {
            if (chain != null && chain.length > max) {
                throw new CertificateException("a " + whose + " certificate chain of " + chain.length
                        + " certificates, over the limit of " + max + " (" + property + ")");
            }
        }

        private static void refuseLongClientChain(X509Certificate[] chain) throws CertificateException {
            refuseLong(chain, ChainLimits.CLIENT, "client", "jdk.tls.server.maxInboundCertificateChainLength");
        }

        private static void refuseLongServerChain(X509Certificate[] chain) throws CertificateException {
            refuseLong(chain, ChainLimits.SERVER, "server", "jdk.tls.client.maxInboundCertificateChainLength");
        }

        /** The key exchange name a check of a server's chain passes on: as it came, unless a subclass maps it. */
        String serverAuthType(String authType) {
            return authType;
        }

        @Override
        public final void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket)
                throws CertificateException {
            refuseLongClientChain(chain);
            check(tm -> tm.checkClientTrusted(chain, authType, socket));
        }

        @Override
        public final void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket)
                throws CertificateException {
            refuseLongServerChain(chain);
            check(tm -> tm.checkServerTrusted(chain, serverAuthType(authType), socket));
        }

        @Override
        public final void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
                throws CertificateException {
            refuseLongClientChain(chain);
            check(tm -> tm.checkClientTrusted(chain, authType, engine));
        }

        @Override
        public final void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
                throws CertificateException {
            refuseLongServerChain(chain);
            check(tm -> tm.checkServerTrusted(chain, serverAuthType(authType), engine));
        }

        @Override
        public final void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
            refuseLongClientChain(chain);
            check(tm -> tm.checkClientTrusted(chain, authType));
        }

        @Override
        public final void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
            refuseLongServerChain(chain);
            check(tm -> tm.checkServerTrusted(chain, serverAuthType(authType)));
        }
    }

    /**
     * Trusts a chain any of its members trusts (the private CAs first, then the JDK's). When all refuse, the most
     * telling refusal is thrown: "expired" or "no name matching" from a store that knew the CA says more than
     * "unable to find valid certification path" from one that did not.
     */
    static final class AnyOf extends Funnel {
        private final List<X509ExtendedTrustManager> members;

        AnyOf(List<X509ExtendedTrustManager> members) {
            this.members = List.copyOf(members);
        }

        @Override
        void check(Check check) throws CertificateException {
            CertificateException best = null;
            for (X509ExtendedTrustManager tm : members) {
                try {
                    check.run(tm);
                    return;
                } catch (CertificateException e) {
                    if (best == null || TlsFailures.isUnknownIssuer(best) && !TlsFailures.isUnknownIssuer(e)) {
                        best = e;
                    }
                }
            }
            throw best != null ? best : new CertificateException("no trust store configured");
        }

        @Override
        String serverAuthType(String authType) {
            return jdkAuthType(authType);
        }

        /**
         * The key exchange name the JDK's checker knows for TLS 1.3. BoringSSL (Conscrypt) names TLS 1.3's key
         * exchange "GENERIC", which the JDK's end-entity check refuses as "Unknown authType"; JSSE passes "UNKNOWN"
         * for the same handshake, which the check accepts for a certificate that may sign (key usage
         * digitalSignature). Every other name is passed as it came.
         */
        static String jdkAuthType(String authType) {
            return "GENERIC".equals(authType) ? "UNKNOWN" : authType;
        }

        @Override
        public X509Certificate[] getAcceptedIssuers() {
            List<X509Certificate> all = new ArrayList<>();
            members.forEach(tm -> all.addAll(Arrays.asList(tm.getAcceptedIssuers())));
            return all.toArray(X509Certificate[]::new);
        }
    }

    /** A trust manager whose CAs can be replaced while handshakes run (client CAs reloaded from their file). */
    static final class Swappable extends Funnel {
        private volatile X509ExtendedTrustManager delegate;

        Swappable(X509ExtendedTrustManager delegate) {
            this.delegate = delegate;
        }

        void replace(X509ExtendedTrustManager next) {
            delegate = next;
        }

        @Override
        void check(Check check) throws CertificateException {
            check.run(delegate);
        }

        @Override
        public X509Certificate[] getAcceptedIssuers() {
            return delegate.getAcceptedIssuers();
        }
    }

    /**
     * The longest certificate chains taken, read as JSSE reads them ({@code sun.security.ssl.SSLConfiguration}): a
     * side's own property if set and not negative, else {@code jdk.tls.maxCertificateChainLength}, else 8 for a
     * client's chain and 10 for a server's.
     */
    static final class ChainLimits {
        static final int CLIENT = limit("jdk.tls.server.maxInboundCertificateChainLength", 8);
        static final int SERVER = limit("jdk.tls.client.maxInboundCertificateChainLength", 10);

        private ChainLimits() {
        }

        static int limit(String sideProperty, int otherwise) {
            Integer side = Integer.getInteger(sideProperty);
            if (side != null && side >= 0) {
                return side;
            }
            Integer both = Integer.getInteger("jdk.tls.maxCertificateChainLength");
            return both != null && both >= 0 ? both : otherwise;
        }
    }

    /** Trusts every certificate and every name: {@code upstream.ssl.insecure}, for labs only. */
    static final class Insecure extends Funnel {
        @Override
        void check(Check check) {
        }

        @Override
        public X509Certificate[] getAcceptedIssuers() {
            return new X509Certificate[0];
        }
    }
}
