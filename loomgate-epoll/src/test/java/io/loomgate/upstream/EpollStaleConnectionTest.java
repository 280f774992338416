package io.loomgate.upstream;

import io.loomgate.server.EpollTransportSupport;

/**
 * Every case of {@link StaleConnectionTest} with the connections to the origin on epoll: a plain connection idle for
 * more than a second is probed before it is lent again, as a channel is on the JDK's sockets (a read that does not
 * wait, no timer), where it used to be probed only after 10 s, as a TLS one is.
 */
class EpollStaleConnectionTest extends StaleConnectionTest {
    private static final Dialer EPOLL = new EpollTransportSupport()::connect;

    @Override
    PoolSettings settings() {
        return super.settings().withDialer(EPOLL);
    }
}
