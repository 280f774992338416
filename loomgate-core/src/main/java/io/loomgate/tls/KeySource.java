package io.loomgate.tls;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.Key;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * Where one certificate and its private key come from: a PEM pair (Spring Boot's {@code certificate} +
 * {@code certificate-private-key}) or a key store ({@code key-store}, {@code key-store-password},
 * {@code key-store-type}, optionally {@code key-alias} and {@code key-password}).
 *
 * @param certificate      PEM chain, leaf first (null with a key store)
 * @param privateKey       PEM key: PKCS#8, PKCS#1 RSA or SEC1 EC (null with a key store)
 * @param keyStore         PKCS#12 (or JKS) file (null with PEM)
 * @param keyStorePassword its password (may be empty)
 * @param keyStoreType     PKCS12 (default) or JKS
 * @param keyAlias         the entry to use; null for the first private key entry
 * @param keyPassword      the entry's password; null for the store's
 */
public record KeySource(Path certificate, Path privateKey, Path keyStore, String keyStorePassword,
                        String keyStoreType, String keyAlias, String keyPassword) {

    public KeySource {
        if ((certificate == null) == (keyStore == null)) {
            throw new IllegalArgumentException("give either certificate + certificate-private-key or key-store");
        }
        if (certificate != null && privateKey == null) {
            throw new IllegalArgumentException("certificate needs certificate-private-key");
        }
    }

    public static KeySource pem(Path certificate, Path privateKey) {
        return new KeySource(certificate, privateKey, null, null, null, null, null);
    }

    public static KeySource keyStore(Path keyStore, String password, String type) {
        return new KeySource(null, null, keyStore, password, type, null, null);
    }

    /** The files to watch for changes. */
    public List<Path> files() {
        return keyStore != null ? List.of(keyStore) : List.of(certificate, privateKey);
    }

    /** Reads and checks the pair: a chain, a key, and the key belongs to the chain's first certificate. */
    Identity load() throws TlsMaterialException {
        Identity identity = keyStore != null ? fromKeyStore() : new Identity(
                Pem.certificates(certificate).toArray(X509Certificate[]::new), Pem.privateKey(privateKey));
        identity.checkKeyMatches(keyStore != null ? keyStore : privateKey);
        return identity;
    }

    private Identity fromKeyStore() throws TlsMaterialException {
        String type = keyStoreType == null ? "PKCS12" : keyStoreType;
        char[] password = keyStorePassword == null ? new char[0] : keyStorePassword.toCharArray();
        KeyStore ks;
        try (InputStream in = Files.newInputStream(keyStore)) {
            ks = KeyStore.getInstance(type);
            ks.load(in, password);
        } catch (NoSuchFileException e) {
            throw new TlsMaterialException(keyStore, "no such file");
        } catch (IOException e) {
            // A wrong password surfaces here, as an IOException whose cause is an UnrecoverableKeyException.
            throw new TlsMaterialException(keyStore, "cannot open the " + type + " key store: " + e.getMessage());
        } catch (GeneralSecurityException e) {
            throw new TlsMaterialException(keyStore, "cannot open the " + type + " key store: " + e);
        }
        try {
            List<String> aliases = keyAlias != null ? List.of(keyAlias) : new ArrayList<>(Collections.list(ks.aliases()));
            for (String alias : aliases) {
                if (!ks.isKeyEntry(alias)) {
                    continue;
                }
                Key key = ks.getKey(alias, keyPassword != null ? keyPassword.toCharArray() : password);
                Certificate[] chain = ks.getCertificateChain(alias);
                if (key instanceof PrivateKey pk && chain != null && chain.length > 0) {
                    X509Certificate[] x509 = new X509Certificate[chain.length];
                    for (int i = 0; i < chain.length; i++) {
                        x509[i] = (X509Certificate) chain[i];
                    }
                    return new Identity(x509, pk);
                }
            }
        } catch (GeneralSecurityException e) {
            throw new TlsMaterialException(keyStore, "cannot read the private key: " + e.getMessage());
        }
        throw new TlsMaterialException(keyStore, keyAlias != null ? "no private key entry '" + keyAlias + "'"
                : "no private key entry with a certificate chain");
    }

    @Override
    public String toString() {
        return keyStore != null ? keyStore.toString() : Objects.toString(certificate);
    }
}
