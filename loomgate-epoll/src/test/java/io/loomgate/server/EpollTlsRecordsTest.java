package io.loomgate.server;

/**
 * Every case of {@link TlsRecordsTest} (records split at every byte, records larger than the read buffer, a TLS 1.3
 * KeyUpdate, a TLS 1.2 renegotiation refused) on {@code transport: epoll}. The renegotiation case failed here before
 * session 47: a TLS listener on epoll layered JSSE's own socket over the epoll socket, and JSSE's server socket
 * renegotiates whenever a TLS 1.2 client asks (HostileProbeTest's "TLS 1.2 renegotiation" probe on epoll found it);
 * now the gateway's engine loop ({@code EngineSocket}) runs on epoll sockets too and refuses it as on the JDK's.
 */
class EpollTlsRecordsTest extends TlsRecordsTest {
    @Override
    Transport transport() {
        return Transport.EPOLL;
    }
}
