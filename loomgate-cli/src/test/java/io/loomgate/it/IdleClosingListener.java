package io.loomgate.it;

import io.loomgate.http2.Http2Settings;
import io.loomgate.server.ConnectionListener;
import io.loomgate.server.ExchangeHandler;
import io.loomgate.server.Listener;
import io.loomgate.server.ListenerSettings;
import io.loomgate.testkit.TestPki;
import io.loomgate.threads.ConnectionExecutors;
import io.loomgate.threads.ThreadModel;
import io.loomgate.tls.KeySource;
import io.loomgate.tls.ServerTls;
import io.loomgate.tls.ServerTlsSettings;
import io.loomgate.tls.TlsMaterialException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The project's own listener as an origin that closes a connection once it has been idle for a while (GOAWAY first
 * over h2), counting the connections it has open so a test can wait for their close. Shared by
 * {@link IdleClosedOriginConnectionTest} and {@link H2IdleGoAwayRoundsRepro}.
 */
final class IdleClosingListener {
    private IdleClosingListener() {
    }

    /** Its TLS with {@code cert}, offering {@code alpn}. */
    static ServerTls tls(TestPki.Issued cert, List<String> alpn) throws TlsMaterialException {
        ServerTlsSettings s = ServerTlsSettings.of(KeySource.pem(cert.cert(), cert.key()));
        return ServerTls.create(new ServerTlsSettings(s.certificates(), s.protocols(), s.ciphers(), s.clientAuth(),
                s.trustCertificate(), s.sessionResumption(), alpn));
    }

    /**
     * Started on an ephemeral loopback port: plain when {@code tls} is null, HTTP/2 when {@code http2} (h2c with prior
     * knowledge, or by ALPN), closing connections idle for {@code idle}; {@code open} counts those open.
     */
    static Listener start(ServerTls tls, Duration idle, boolean http2, ExchangeHandler handler, AtomicInteger open)
            throws IOException {
        ListenerSettings d = ListenerSettings.defaults("127.0.0.1", 0);
        ListenerSettings settings = new ListenerSettings(d.address(), d.port(), d.backlog(), d.maxConnections(),
                d.headerTimeout(), idle, d.readTimeout(), d.limits(),
                Http2Settings.enabledDefaults().withEnabled(http2), false);
        return new Listener(settings, tls, handler, ConnectionExecutors.create(ThreadModel.VIRTUAL, "idle-origin"),
                new ConnectionListener() {
                    @Override
                    public void connectionOpened(InetSocketAddress remote) {
                        open.incrementAndGet();
                    }

                    @Override
                    public void connectionClosed(InetSocketAddress remote, int requests) {
                        open.decrementAndGet();
                    }
                }).start();
    }
}
