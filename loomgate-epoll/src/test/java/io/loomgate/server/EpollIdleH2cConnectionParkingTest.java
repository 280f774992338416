package io.loomgate.server;

/**
 * Every scenario of {@link IdleH2cConnectionParkingTest} (HPACK state across parks, PING while parked, GOAWAY at the
 * idle timeout and on drain, the client's FIN and RST, Rapid Reset counted across parks, many connections churning)
 * on {@code transport: epoll}: the GOAWAY of a parked connection is written without blocking through the epoll
 * socket ({@link EpollSupport#writeNow}).
 */
class EpollIdleH2cConnectionParkingTest extends IdleH2cConnectionParkingTest {
    @Override
    Transport transport() {
        return Transport.EPOLL;
    }
}
