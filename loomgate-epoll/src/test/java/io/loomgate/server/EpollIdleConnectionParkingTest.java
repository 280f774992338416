package io.loomgate.server;

/**
 * Every scenario of {@link IdleConnectionParkingTest} (park and resume, idle timeout, the client's FIN, drain, the
 * listener's end, pipelining, the header deadline across a park, races around the hand-off) on
 * {@code transport: epoll}, where an idle connection parks as a readiness callback on the epoll poller
 * ({@link EpollIdleConnections}).
 */
class EpollIdleConnectionParkingTest extends IdleConnectionParkingTest {
    @Override
    Transport transport() {
        return Transport.EPOLL;
    }
}
