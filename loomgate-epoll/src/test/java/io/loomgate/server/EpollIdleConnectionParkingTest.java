package io.loomgate.server;

import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * Every scenario of {@link IdleConnectionParkingTest} (park and resume, idle timeout, the client's FIN, drain, the
 * listener's end, pipelining, the header deadline across a park, races around the hand-off) on
 * {@code transport: epoll}, where an idle connection parks as a readiness callback on the epoll poller
 * ({@link EpollIdleConnections}).
 */
// Beside the module's other classes (loomgate-epoll/pom.xml): each case waits out idle timeouts and hand-offs on a
// listener of its own, no count of the JVM's threads or descriptors; its lock keeps its own cases in a row, on one
// thread, as before.
@Execution(ExecutionMode.CONCURRENT)
@ResourceLock("EpollIdleConnectionParkingTest")
class EpollIdleConnectionParkingTest extends IdleConnectionParkingTest {
    @Override
    Transport transport() {
        return Transport.EPOLL;
    }
}
