package io.loomgate.tls;

import java.net.Socket;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Locale;
import javax.net.ssl.ExtendedSSLSession;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SNIServerName;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLSession;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.X509ExtendedKeyManager;

/**
 * The key manager of a listener or of the upstream client: picks which certificate a handshake presents, from a set
 * that can be swapped at any time (live reload) without touching handshakes in progress.
 *
 * <p>Server side: the client's SNI name picks the first entry whose name matches it exactly, else the first whose
 * wildcard matches ({@code *.example.com} matches one label: {@code a.example.com}, not {@code a.b.example.com});
 * no SNI, or no match, gets the first entry (the default). An entry is only chosen for a key type it can sign with,
 * so JSSE's walk over the client's signature schemes finds the right one.
 *
 * <p>Aliases carry the generation of the set they came from ({@code 3.0}), so a reload between JSSE's
 * {@code chooseServerAlias} and its {@code getCertificateChain} still answers from one consistent set.
 */
final class SniKeyManager extends X509ExtendedKeyManager {

    /** One certificate and the server name it is for (null for the default entry). */
    record Entry(String serverName, Identity identity) {
        boolean matchesExactly(String host) {
            return serverName != null && !serverName.startsWith("*.") && serverName.equalsIgnoreCase(host);
        }

        boolean matchesWildcard(String host) {
            if (serverName == null || !serverName.startsWith("*.")) {
                return false;
            }
            int dot = host.indexOf('.');
            return dot > 0 && host.substring(dot).equalsIgnoreCase(serverName.substring(1));
        }
    }

    private record Generation(int number, List<Entry> entries) {
    }

    private volatile Generation current;
    private volatile Generation previous;

    SniKeyManager(List<Entry> entries) {
        this.current = new Generation(0, List.copyOf(entries));
        this.previous = current;
    }

    /** Swaps in a new set for the handshakes that start from now on. */
    void replace(List<Entry> entries) {
        Generation old = current;
        previous = old;
        current = new Generation(old.number() + 1, List.copyOf(entries));
    }

    List<Entry> entries() {
        return current.entries();
    }

    @Override
    public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
        String sni = socket instanceof SSLSocket s ? requestedHost(s.getHandshakeSession()) : null;
        return choose(keyType, sni);
    }

    @Override
    public String chooseEngineServerAlias(String keyType, Principal[] issuers, SSLEngine engine) {
        return choose(keyType, engine == null ? null : requestedHost(engine.getHandshakeSession()));
    }

    private String choose(String keyType, String sni) {
        Generation g = current;
        List<Entry> entries = g.entries();
        int chosen = sni == null ? -1 : named(entries, sni);
        if (chosen < 0) {
            chosen = 0; // no SNI, or a name no entry is for: the default certificate
        }
        // Only the entry for this name, even when another could sign with this key type: JSSE asks again with the
        // client's next signature scheme, and the entry's own key type comes up.
        return chosen < entries.size() && entries.get(chosen).identity().serves(keyType) ? g.number() + "." + chosen
                : null;
    }

    /** The entry for this name: an exact name first, then a wildcard; -1 when none is. */
    private static int named(List<Entry> entries, String sni) {
        for (int i = 0; i < entries.size(); i++) {
            if (entries.get(i).matchesExactly(sni)) {
                return i;
            }
        }
        for (int i = 0; i < entries.size(); i++) {
            if (entries.get(i).matchesWildcard(sni)) {
                return i;
            }
        }
        return -1;
    }

    static String requestedHost(SSLSession handshake) {
        if (!(handshake instanceof ExtendedSSLSession e)) {
            return null;
        }
        for (SNIServerName name : e.getRequestedServerNames()) {
            if (name instanceof SNIHostName host) {
                return host.getAsciiName().toLowerCase(Locale.ROOT);
            }
        }
        return null;
    }

    /** Client side (mTLS to an origin): the first entry, if it can sign with one of the offered types. */
    @Override
    public String chooseClientAlias(String[] keyTypes, Principal[] issuers, Socket socket) {
        Generation g = current;
        if (g.entries().isEmpty()) {
            return null;
        }
        for (String t : keyTypes) {
            if (g.entries().get(0).identity().serves(t)) {
                return g.number() + ".0";
            }
        }
        return null;
    }

    @Override
    public String chooseEngineClientAlias(String[] keyTypes, Principal[] issuers, SSLEngine engine) {
        return chooseClientAlias(keyTypes, issuers, null);
    }

    @Override
    public X509Certificate[] getCertificateChain(String alias) {
        Entry e = entry(alias);
        return e == null ? null : e.identity().chain().clone();
    }

    @Override
    public PrivateKey getPrivateKey(String alias) {
        Entry e = entry(alias);
        return e == null ? null : e.identity().key();
    }

    private Entry entry(String alias) {
        if (alias == null) {
            return null;
        }
        int dot = alias.indexOf('.');
        if (dot < 0) {
            return null;
        }
        int number;
        int index;
        try {
            number = Integer.parseInt(alias.substring(0, dot));
            index = Integer.parseInt(alias.substring(dot + 1));
        } catch (NumberFormatException e) {
            return null;
        }
        for (Generation g : new Generation[] {current, previous}) {
            if (g.number() == number && index < g.entries().size()) {
                return g.entries().get(index);
            }
        }
        return null;
    }

    @Override
    public String[] getServerAliases(String keyType, Principal[] issuers) {
        Generation g = current;
        return java.util.stream.IntStream.range(0, g.entries().size())
                .filter(i -> g.entries().get(i).identity().serves(keyType))
                .mapToObj(i -> g.number() + "." + i).toArray(String[]::new);
    }

    @Override
    public String[] getClientAliases(String keyType, Principal[] issuers) {
        return getServerAliases(keyType, issuers);
    }
}
