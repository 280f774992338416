package io.loomgate.config;

import io.loomgate.tls.ClientAuth;
import io.loomgate.tls.ClientTls;
import io.loomgate.tls.ClientTlsSettings;
import io.loomgate.tls.KeySource;
import io.loomgate.tls.NamedKeySource;
import io.loomgate.tls.ServerTls;
import io.loomgate.tls.ServerTlsSettings;
import io.loomgate.tls.TlsMaterialException;
import io.loomgate.tls.TlsProvider;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Reads the {@code ssl:} sections (Spring Boot's key names) of {@code server}, {@code admin} and {@code upstream},
 * and loads every certificate, key and CA file they name, so a missing file, a wrong password or a key that does not
 * belong to its certificate is refused at start-up with the file, line and key. Relative paths are resolved against
 * the directory of the configuration file.
 */
final class TlsReader {
    private static final List<String> IDENTITY_KEYS = List.of("certificate", "certificate-private-key", "key-store",
            "key-store-password", "key-store-type", "key-alias", "key-password");
    static final List<String> SERVER_SSL_KEYS = concat(IDENTITY_KEYS, List.of("enabled", "server-names",
            "enabled-protocols", "ciphers", "client-auth", "trust-certificate", "session-resumption", "provider"));
    private static final List<String> SERVER_NAME_KEYS = concat(List.of("server-name"), IDENTITY_KEYS);
    static final List<String> UPSTREAM_SSL_KEYS = concat(IDENTITY_KEYS, List.of("trust-certificate", "insecure",
            "enabled-protocols", "ciphers", "provider"));

    private final String file;
    private final Path base;
    /** Which key named which file, to put a loading failure on the right line. */
    private final Map<Path, Located> origins = new HashMap<>();

    private record Located(Section section, String key) {
    }

    TlsReader(String file, Path source) {
        this.file = file;
        Path parent = source == null ? null : source.toAbsolutePath().getParent();
        this.base = parent == null ? Path.of("") : parent;
    }

    /**
     * {@code server.ssl} or {@code admin.ssl}: null when absent or {@code enabled: false}.
     *
     * @param alpn the application protocols to offer, in preference order
     */
    ServerTlsSettings server(Section parent, String name, List<String> alpn) throws ConfigException {
        if (!parent.has("ssl")) {
            return null;
        }
        Section s = Section.dotted(file, name, parent.node("ssl"), parent.lineOf("ssl"), SERVER_SSL_KEYS);
        if (!s.bool("enabled", true)) {
            return null;
        }
        List<NamedKeySource> certificates = new ArrayList<>();
        certificates.add(new NamedKeySource(null, identity(s, true)));
        List<YamlNode> names = s.list("server-names");
        for (int i = 0; i < names.size(); i++) {
            Section n = Section.context(file, name + ".server-names[" + i + "]", names.get(i), SERVER_NAME_KEYS);
            String serverName = n.string("server-name", null);
            if (serverName == null) {
                throw new ConfigException(file, n.line(), name + ".server-names[" + i + "]", "missing 'server-name'");
            }
            if (!serverName.matches("(\\*\\.)?[A-Za-z0-9-]+(\\.[A-Za-z0-9-]+)*")) {
                throw n.error("server-name", "expected a host name or *.domain, got '" + serverName + "'");
            }
            certificates.add(new NamedKeySource(serverName.toLowerCase(Locale.ROOT), identity(n, true)));
        }
        ClientAuth auth = clientAuth(s);
        Path trust = path(s, "trust-certificate");
        if (auth != ClientAuth.NONE && trust == null) {
            throw s.error("client-auth", "client-auth " + auth.name().toLowerCase(Locale.ROOT) + " needs "
                    + name + ".trust-certificate (PEM CAs that sign client certificates)");
        }
        return tried(s, () -> new ServerTlsSettings(certificates, protocols(s), strings(s, "ciphers"), auth, trust,
                s.bool("session-resumption", true), alpn, provider(s, "auto")), ServerTls::create);
    }

    /** {@code upstream.ssl}: the defaults (JDK trust store, verification on) when absent. */
    ClientTlsSettings upstream(Section parent) throws ConfigException {
        if (!parent.has("ssl")) {
            return ClientTlsSettings.DEFAULTS;
        }
        Section s = Section.dotted(file, "upstream.ssl", parent.node("ssl"), parent.lineOf("ssl"), UPSTREAM_SSL_KEYS);
        boolean insecure = s.bool("insecure", false);
        KeySource identity = identity(s, false);
        return tried(s, () -> new ClientTlsSettings(path(s, "trust-certificate"), insecure, identity, protocols(s),
                strings(s, "ciphers"), provider(s, "jdk")), ClientTls::create);
    }

    /** Settings read from a section; {@link IllegalArgumentException} for values that do not go together. */
    @FunctionalInterface
    private interface SettingsRead<T> {
        T read() throws ConfigException;
    }

    /** Makes the TLS side the settings describe, loading every file they name. */
    @FunctionalInterface
    private interface Trial<T> {
        void make(T settings) throws TlsMaterialException;
    }

    /**
     * The settings of section {@code s}, refused with their key unless their TLS side can be made now: a file that
     * cannot be used on the line of the key naming it, what the settings' record refuses on enabled-protocols, what
     * the provider refuses (an unknown cipher suite or protocol) on ciphers.
     */
    private <T> T tried(Section s, SettingsRead<T> settings, Trial<T> trial) throws ConfigException {
        T read;
        try {
            read = settings.read();
        } catch (IllegalArgumentException e) {
            throw s.error("enabled-protocols", e.getMessage());
        }
        try {
            trial.make(read);
        } catch (TlsMaterialException e) {
            throw located(s, e);
        } catch (IllegalArgumentException e) {
            throw s.error("ciphers", e.getMessage());
        }
        return read;
    }

    /** A PEM pair or a key store; null when neither is given and {@code required} is false. */
    private KeySource identity(Section s, boolean required) throws ConfigException {
        Path cert = path(s, "certificate");
        Path key = path(s, "certificate-private-key");
        Path store = path(s, "key-store");
        if (cert != null && store != null) {
            throw s.error("key-store", "give either certificate + certificate-private-key or key-store, not both");
        }
        if (cert != null && key == null) {
            throw s.error("certificate", "needs certificate-private-key (the PEM private key of the certificate)");
        }
        if (cert == null && key != null) {
            throw s.error("certificate-private-key", "needs certificate (the PEM certificate chain)");
        }
        if (store != null) {
            String type = s.string("key-store-type", "PKCS12").toUpperCase(Locale.ROOT);
            if (!type.equals("PKCS12") && !type.equals("JKS")) {
                throw s.error("key-store-type", "expected PKCS12 or JKS, got '" + type + "'");
            }
            return new KeySource(null, null, store, password(s, "key-store-password"), type,
                    s.has("key-alias") ? s.string("key-alias", null) : null,
                    s.has("key-password") ? password(s, "key-password") : null);
        }
        if (cert != null) {
            return KeySource.pem(cert, key);
        }
        if (required) {
            throw s.error("certificate", "missing: TLS needs certificate + certificate-private-key (PEM) or "
                    + "key-store");
        }
        return null;
    }

    private Path path(Section s, String key) throws ConfigException {
        String text = s.string(key, null);
        if (text == null) {
            return null;
        }
        Path p;
        try {
            p = base.resolve(text).normalize();
        } catch (java.nio.file.InvalidPathException e) {
            throw s.error(key, "not a valid path: " + e.getMessage());
        }
        origins.putIfAbsent(p, new Located(s, key));
        return p;
    }

    /** Passwords may be empty (an unprotected PKCS#12), which {@link Section#string} refuses. */
    private static String password(Section s, String key) throws ConfigException {
        YamlNode n = s.node(key);
        if (n == null || n instanceof YamlNode.Scalar sc && sc.isNull()) {
            return "";
        }
        if (n instanceof YamlNode.Scalar sc) {
            return sc.text();
        }
        throw s.error(key, "expected a string, got " + n.describe());
    }

    private static ClientAuth clientAuth(Section s) throws ConfigException {
        String text = s.string("client-auth", "none");
        try {
            return ClientAuth.valueOf(text.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw s.error("client-auth", "expected none, want or need, got '" + text + "'");
        }
    }

    /**
     * {@code provider: auto | jdk | conscrypt}; conscrypt is refused where it cannot run (JDK < 24, no native
     * library), and auto picks it where it runs ({@link TlsProvider#auto}).
     */
    private static TlsProvider provider(Section s, String fallback) throws ConfigException {
        String text = s.string("provider", fallback).trim().toLowerCase(Locale.ROOT);
        if (text.equals("auto")) {
            return TlsProvider.auto(strings(s, "ciphers"), protocols(s)).provider();
        }
        TlsProvider p;
        try {
            p = TlsProvider.valueOf(text.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw s.error("provider", "expected auto, jdk or conscrypt, got '" + s.string("provider", fallback) + "'");
        }
        String unavailable = p.unavailableReason();
        if (unavailable != null) {
            throw s.error("provider", unavailable);
        }
        return p;
    }

    private static List<String> protocols(Section s) throws ConfigException {
        List<String> p = strings(s, "enabled-protocols");
        return p.isEmpty() && !s.has("enabled-protocols") ? ServerTlsSettings.DEFAULT_PROTOCOLS : p;
    }

    private static List<String> strings(Section s, String key) throws ConfigException {
        return s.scalarList(key).stream().map(sc -> sc.text().trim()).toList();
    }

    private ConfigException located(Section fallback, TlsMaterialException e) {
        Located at = e.file() == null ? null : origins.get(e.file());
        String problem = e.getMessage();
        if (at == null) {
            return new ConfigException(file, fallback.line(), "", problem);
        }
        return at.section().error(at.key(), problem);
    }

    private static List<String> concat(List<String> a, List<String> b) {
        List<String> out = new ArrayList<>(a);
        out.addAll(b);
        return List.copyOf(out);
    }
}
