package io.loomgate.tls;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * TLS to {@code https://} origins: {@code upstream.ssl.*}.
 *
 * @param trustCertificate PEM CAs trusted besides the JDK's trust store (null for the JDK's only)
 * @param insecure         no certificate or host name verification at all (labs only; warned at start-up)
 * @param identity         a client certificate for origins that require one (mTLS), or null
 * @param protocols        enabled protocols (default TLSv1.3, TLSv1.2)
 * @param ciphers          enabled cipher suites; empty for the JDK's defaults
 * @param provider         who runs the handshakes and records: the JDK's JSSE (default) or Conscrypt
 */
public record ClientTlsSettings(Path trustCertificate, boolean insecure, KeySource identity, List<String> protocols,
                                List<String> ciphers, TlsProvider provider) {
    public static final ClientTlsSettings DEFAULTS = new ClientTlsSettings(null, false, null,
            ServerTlsSettings.DEFAULT_PROTOCOLS, List.of(), TlsProvider.JDK);

    public ClientTlsSettings {
        protocols = List.copyOf(protocols);
        ciphers = List.copyOf(ciphers);
        Objects.requireNonNull(provider, "provider");
        TlsProtocols.check(protocols);
    }

    public ClientTlsSettings withTrust(Path pem) {
        return new ClientTlsSettings(pem, insecure, identity, protocols, ciphers, provider);
    }

    public ClientTlsSettings withIdentity(KeySource source) {
        return new ClientTlsSettings(trustCertificate, insecure, source, protocols, ciphers, provider);
    }

    public ClientTlsSettings withProvider(TlsProvider p) {
        return new ClientTlsSettings(trustCertificate, insecure, identity, protocols, ciphers, p);
    }

    public List<Path> files() {
        List<Path> out = new ArrayList<>();
        if (identity != null) {
            out.addAll(identity.files());
        }
        if (trustCertificate != null) {
            out.add(trustCertificate);
        }
        return out;
    }
}
