package io.loomgate.upstream;

import io.loomgate.tls.TlsProvider;

/**
 * {@link ConnectFailureTest} with {@code upstream.ssl.provider: conscrypt}: the dial's one budget through the gateway's
 * engine socket (the handshake's reads bounded by what the connect left, the whole handshake cut by the watchdog
 * closing the plain socket under the engine), and the waiters on a stalled handshake failing with it.
 */
class ConscryptConnectFailureTest extends ConnectFailureTest {
    @Override
    TlsProvider provider() {
        return TlsProvider.CONSCRYPT;
    }
}
