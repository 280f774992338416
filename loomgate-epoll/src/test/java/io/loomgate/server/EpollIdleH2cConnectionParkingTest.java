package io.loomgate.server;

import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * Every scenario of {@link IdleH2cConnectionParkingTest} (HPACK state across parks, PING while parked, GOAWAY at the
 * idle timeout and on drain, the client's FIN and RST, Rapid Reset counted across parks, many connections churning)
 * on {@code transport: epoll}: the GOAWAY of a parked connection is written without blocking through the epoll
 * socket ({@link EpollSupport#writeNow}).
 */
// Beside the module's other classes (loomgate-epoll/pom.xml): each case waits out idle timeouts on a listener of its
// own, no count of the JVM's threads or descriptors; its lock keeps its own cases in a row, on one thread, as before.
@Execution(ExecutionMode.CONCURRENT)
@ResourceLock("EpollIdleH2cConnectionParkingTest")
class EpollIdleH2cConnectionParkingTest extends IdleH2cConnectionParkingTest {
    @Override
    Transport transport() {
        return Transport.EPOLL;
    }
}
