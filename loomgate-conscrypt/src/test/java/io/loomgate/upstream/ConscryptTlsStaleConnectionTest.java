package io.loomgate.upstream;

import io.loomgate.tls.TlsProvider;

/**
 * {@link TlsStaleConnectionTest} with {@code upstream.ssl.provider: conscrypt}: the pool's health probe of an idle TLS
 * connection (a 1 ms timed read, its timeout undone after) through the gateway's engine socket, which passes the
 * read timeout on to the plain socket and keeps a timed-out read's state.
 */
class ConscryptTlsStaleConnectionTest extends TlsStaleConnectionTest {
    @Override
    TlsProvider provider() {
        return TlsProvider.CONSCRYPT;
    }
}
