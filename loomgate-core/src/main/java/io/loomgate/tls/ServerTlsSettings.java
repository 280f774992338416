package io.loomgate.tls;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * TLS on a listener: Spring Boot's {@code server.ssl.*}.
 *
 * @param certificates         the default certificate first, then one per {@code server-names} entry
 * @param protocols            enabled protocols (default TLSv1.3, TLSv1.2; nothing older is accepted)
 * @param ciphers              enabled cipher suites; empty for the JDK's AEAD ones (no CBC)
 * @param clientAuth           none, want or need
 * @param trustCertificate     PEM CAs for client certificates (required with want/need)
 * @param sessionResumption    whether clients may resume sessions (tickets, session ids); default true
 * @param applicationProtocols ALPN protocols in preference order, e.g. {@code http/1.1}
 * @param provider             the TLS implementation (default the JDK's)
 */
public record ServerTlsSettings(List<NamedKeySource> certificates, List<String> protocols, List<String> ciphers,
                                ClientAuth clientAuth, Path trustCertificate, boolean sessionResumption,
                                List<String> applicationProtocols, TlsProvider provider) {
    public static final List<String> DEFAULT_PROTOCOLS = List.of("TLSv1.3", "TLSv1.2");

    public ServerTlsSettings {
        certificates = List.copyOf(certificates);
        protocols = List.copyOf(protocols);
        ciphers = List.copyOf(ciphers);
        applicationProtocols = List.copyOf(applicationProtocols);
        Objects.requireNonNull(clientAuth, "clientAuth");
        Objects.requireNonNull(provider, "provider");
        if (certificates.isEmpty() || certificates.get(0).serverName() != null) {
            throw new IllegalArgumentException("the first certificate is the default one and has no server name");
        }
        if (clientAuth != ClientAuth.NONE && trustCertificate == null) {
            throw new IllegalArgumentException("client-auth " + clientAuth.name().toLowerCase(java.util.Locale.ROOT)
                    + " needs trust-certificate (the CAs that sign client certificates)");
        }
        TlsProtocols.check(protocols);
    }

    /** The JDK's provider. */
    public ServerTlsSettings(List<NamedKeySource> certificates, List<String> protocols, List<String> ciphers,
                             ClientAuth clientAuth, Path trustCertificate, boolean sessionResumption,
                             List<String> applicationProtocols) {
        this(certificates, protocols, ciphers, clientAuth, trustCertificate, sessionResumption, applicationProtocols,
                TlsProvider.JDK);
    }

    /** A listener with one PEM certificate and every default. */
    public static ServerTlsSettings of(KeySource source) {
        return new ServerTlsSettings(List.of(new NamedKeySource(null, source)), DEFAULT_PROTOCOLS, List.of(),
                ClientAuth.NONE, null, true, List.of("http/1.1"));
    }

    /** These settings with other certificates (the default one first). */
    public ServerTlsSettings withCertificates(List<NamedKeySource> other) {
        return new ServerTlsSettings(other, protocols, ciphers, clientAuth, trustCertificate, sessionResumption,
                applicationProtocols, provider);
    }

    public ServerTlsSettings withClientAuth(ClientAuth auth, Path trust) {
        return new ServerTlsSettings(certificates, protocols, ciphers, auth, trust, sessionResumption,
                applicationProtocols, provider);
    }

    public ServerTlsSettings withServerName(String serverName, KeySource source) {
        List<NamedKeySource> more = new ArrayList<>(certificates);
        more.add(new NamedKeySource(serverName, source));
        return new ServerTlsSettings(more, protocols, ciphers, clientAuth, trustCertificate, sessionResumption,
                applicationProtocols, provider);
    }

    public ServerTlsSettings withProtocols(List<String> enabled) {
        return new ServerTlsSettings(certificates, enabled, ciphers, clientAuth, trustCertificate, sessionResumption,
                applicationProtocols, provider);
    }

    public ServerTlsSettings withSessionResumption(boolean on) {
        return new ServerTlsSettings(certificates, protocols, ciphers, clientAuth, trustCertificate, on,
                applicationProtocols, provider);
    }

    public ServerTlsSettings withProvider(TlsProvider p) {
        return new ServerTlsSettings(certificates, protocols, ciphers, clientAuth, trustCertificate, sessionResumption,
                applicationProtocols, p);
    }

    public ServerTlsSettings withApplicationProtocols(List<String> alpn) {
        return new ServerTlsSettings(certificates, protocols, ciphers, clientAuth, trustCertificate, sessionResumption,
                alpn, provider);
    }

    /** Every file whose change reloads the listener's certificates. */
    public List<Path> files() {
        List<Path> out = new ArrayList<>();
        certificates.forEach(c -> out.addAll(c.source().files()));
        if (trustCertificate != null) {
            out.add(trustCertificate);
        }
        return out;
    }
}
