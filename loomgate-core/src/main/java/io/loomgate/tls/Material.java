package io.loomgate.tls;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * The certificates and CAs behind one SSLContext, as replaceable parts: the context keeps its key and trust manager
 * objects (and with them its session caches) while what they hand out is swapped by {@link #reload()}.
 */
final class Material {
    /** How to build the trust manager from its file (or none). */
    @FunctionalInterface
    interface TrustBuilder {
        X509ExtendedTrustManager build() throws TlsMaterialException;
    }

    /**
     * Turns a loaded identity into the form the TLS provider signs with, once per load (not per handshake): the
     * identity as it is for JSSE; for Conscrypt a key BoringSSL holds natively ({@link ConscryptSupport#nativeForm}).
     */
    @FunctionalInterface
    interface KeyForm {
        Identity convert(Identity loaded);

        KeyForm AS_LOADED = identity -> identity;
    }

    /** What {@link #reload()} reads: replaced whole by {@link #replace} (a live reload naming other files). */
    private record Sources(List<NamedKeySource> certificates, List<Path> files) {
    }

    private final KeyForm keyForm;
    private final TrustBuilder trustBuilder;
    /** Orders a reload of the files against a replacement of the files, so neither undoes the other. */
    private final ReentrantLock swap = new ReentrantLock();
    private volatile Sources sources;
    final SniKeyManager keys;
    final Trust.Swappable trust;

    private Material(List<NamedKeySource> sources, KeyForm keyForm, TrustBuilder trustBuilder, List<Path> files,
                     SniKeyManager keys, Trust.Swappable trust) {
        this.sources = new Sources(sources, files);
        this.keyForm = keyForm;
        this.trustBuilder = trustBuilder;
        this.keys = keys;
        this.trust = trust;
    }

    /** Loads everything once; fails on the first file that cannot be used. {@code trust} may be null (no trust). */
    static Material load(List<NamedKeySource> sources, TrustBuilder trust, List<Path> files)
            throws TlsMaterialException {
        return load(sources, KeyForm.AS_LOADED, trust, files);
    }

    /** As {@link #load(List, TrustBuilder, List)}, with every identity put in {@code keyForm} at each (re)load. */
    static Material load(List<NamedKeySource> sources, KeyForm keyForm, TrustBuilder trust, List<Path> files)
            throws TlsMaterialException {
        SniKeyManager keys = new SniKeyManager(entries(sources, keyForm));
        X509ExtendedTrustManager tm = trust == null ? null : trust.build();
        return new Material(List.copyOf(sources), keyForm, trust, List.copyOf(files), keys,
                tm == null ? null : new Trust.Swappable(tm));
    }

    private static List<SniKeyManager.Entry> entries(List<NamedKeySource> sources, KeyForm keyForm)
            throws TlsMaterialException {
        List<SniKeyManager.Entry> out = new ArrayList<>();
        for (NamedKeySource s : sources) {
            out.add(new SniKeyManager.Entry(s.serverName(), keyForm.convert(s.source().load())));
        }
        return out;
    }

    /**
     * Reads every file again and swaps in the result for new handshakes; all or nothing: if any file is broken the
     * old set stays and the exception says which file and why.
     */
    void reload() throws TlsMaterialException {
        swap.lock();
        try {
            List<SniKeyManager.Entry> next = entries(sources.certificates(), keyForm);
            X509ExtendedTrustManager nextTrust = trustBuilder == null ? null : trustBuilder.build();
            keys.replace(next);
            if (trust != null && nextTrust != null) {
                trust.replace(nextTrust);
            }
        } finally {
            swap.unlock();
        }
    }

    /**
     * Serves certificates from other sources from now on (a live reload that names other files): all are read
     * first, and only when every one loads are they swapped in for new handshakes and their files become the ones
     * {@link #files()} names; otherwise nothing changes and the exception names the file. The trust is not changed.
     */
    void replace(List<NamedKeySource> certificates, List<Path> files) throws TlsMaterialException {
        swap.lock();
        try {
            List<SniKeyManager.Entry> next = entries(certificates, keyForm);
            keys.replace(next);
            sources = new Sources(List.copyOf(certificates), List.copyOf(files));
        } finally {
            swap.unlock();
        }
    }

    List<Path> files() {
        return sources.files();
    }

    /** Subjects of the certificates in use, for the log line after a reload. */
    List<String> subjects() {
        return keys.entries().stream()
                .map(e -> e.identity().leaf().getSubjectX500Principal().getName()).toList();
    }
}
