package io.loomgate.tls;

import java.util.Arrays;
import java.util.List;
import java.util.function.BiFunction;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;

/**
 * A listener's TLS parameters as applied to each of its engines, at the least cost per connection.
 *
 * <p>{@code SSLEngine.setSSLParameters} gives every engine its own copies of the protocol, cipher suite, named group
 * and signature scheme lists (about 0.5 KB, kept for the connection's life, idle or not). An engine made by the
 * context already shares the context's default lists, so only what differs from them is set here, one setter each,
 * and ALPN is a selector shared by every engine rather than a protocol array copied into each.
 */
final class EngineSettings {
    private final String[] protocols; // null: the context's default already
    private final String[] cipherSuites; // null: the context's default already
    private final boolean needClientAuth;
    private final boolean wantClientAuth;
    private final BiFunction<SSLEngine, List<String>, String> alpn; // null: no ALPN
    private final SSLParameters whole; // non-null: something only SSLParameters can set differs, so set them all

    EngineSettings(SSLParameters wanted, SSLContext context) {
        SSLEngine defaults = context.createSSLEngine();
        defaults.setUseClientMode(false);
        this.protocols = Arrays.equals(defaults.getEnabledProtocols(), wanted.getProtocols())
                ? null : wanted.getProtocols();
        this.cipherSuites = Arrays.equals(defaults.getEnabledCipherSuites(), wanted.getCipherSuites())
                ? null : wanted.getCipherSuites();
        this.needClientAuth = wanted.getNeedClientAuth();
        this.wantClientAuth = wanted.getWantClientAuth();
        List<String> offered = List.of(wanted.getApplicationProtocols());
        this.alpn = offered.isEmpty() ? null : (engine, asked) -> firstOffered(offered, asked);
        this.whole = defaults.getSSLParameters().getUseCipherSuitesOrder() == wanted.getUseCipherSuitesOrder()
                ? null : wanted;
    }

    /**
     * The first of the listener's protocols the client asked for (the server's preference, as JSSE's own ALPN list
     * chooses); null when none, which JSSE answers with the no_application_protocol alert (RFC 7301 §3.2).
     */
    private static String firstOffered(List<String> offered, List<String> asked) {
        for (String p : offered) {
            if (asked.contains(p)) {
                return p;
            }
        }
        return null;
    }

    void applyTo(SSLEngine e) {
        if (whole != null) {
            e.setSSLParameters(whole);
            return;
        }
        if (protocols != null) {
            e.setEnabledProtocols(protocols);
        }
        if (cipherSuites != null) {
            e.setEnabledCipherSuites(cipherSuites);
        }
        if (needClientAuth) {
            e.setNeedClientAuth(true);
        } else if (wantClientAuth) {
            e.setWantClientAuth(true);
        }
        if (alpn != null) {
            e.setHandshakeApplicationProtocolSelector(alpn);
        }
    }
}
