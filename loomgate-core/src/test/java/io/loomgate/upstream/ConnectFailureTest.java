package io.loomgate.upstream;

import static io.loomgate.upstream.TestPools.within;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.loomgate.http.HttpLimits;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A failed dial comes out as ConnectException (refused) or SocketTimeoutException (connect timeout), names the
 * endpoint, is reported to the listener, and gives its reserved slot back.
 */
class ConnectFailureTest {
    private static final PoolSettings ONE_CONNECTION = new PoolSettings(1, 1, Duration.ofSeconds(60),
            Duration.ofMillis(300), HttpLimits.DEFAULTS);

    private final RecordingPoolListener listener = new RecordingPoolListener();

    @Test
    void refusedConnectThrowsConnectExceptionAndFreesTheSlot() throws Exception {
        Endpoint closedPort = closedPort();
        UpstreamPool pool = new UpstreamPool(closedPort, ONE_CONNECTION, listener);

        for (int attempt = 0; attempt < 2; attempt++) { // the second would be PoolExhausted if the slot leaked
            assertThatThrownBy(() -> pool.acquire(within(Duration.ofMillis(10)), false))
                    .isInstanceOf(ConnectException.class)
                    .hasMessageContaining("connect to " + closedPort + " failed");
        }
        assertThat(pool.inUseCount()).isZero();
        assertThat(pool.connectCount()).isZero();
        assertThat(listener.events).containsExactly("connectFailed:ConnectException",
                "connectFailed:ConnectException");
    }

    @Test
    void connectTimeoutThrowsSocketTimeoutExceptionAndFreesTheSlot() throws Exception {
        Endpoint endpoint = new Endpoint("127.0.0.1", 9);
        AtomicInteger timeoutSeen = new AtomicInteger();
        Connector neverConnects = new Connector(endpoint, ONE_CONNECTION, listener, (address, timeoutMillis) -> {
            timeoutSeen.set(timeoutMillis);
            throw new SocketTimeoutException("Connect timed out");
        });
        UpstreamPool pool = new UpstreamPool(neverConnects, ONE_CONNECTION, listener, System::nanoTime);

        for (int attempt = 0; attempt < 2; attempt++) {
            assertThatThrownBy(() -> pool.acquire(within(Duration.ofMillis(10)), false))
                    .isInstanceOf(SocketTimeoutException.class)
                    .hasMessage("connect to 127.0.0.1:9 timed out after 300ms");
        }
        assertThat(timeoutSeen).hasValue(300);
        assertThat(pool.inUseCount()).isZero();
        assertThat(listener.events).containsExactly("connectFailed:SocketTimeoutException",
                "connectFailed:SocketTimeoutException");
    }

    @Test
    void unknownHostIsAConnectException() {
        Endpoint nowhere = new Endpoint("no-such-host.invalid", 80);
        UpstreamPool pool = new UpstreamPool(nowhere, ONE_CONNECTION, listener);

        assertThatThrownBy(() -> pool.acquire(within(Duration.ofMillis(10)), false))
                .isInstanceOf(ConnectException.class)
                .hasMessage("connect to no-such-host.invalid:80 failed: unknown host no-such-host.invalid");
        assertThat(pool.inUseCount()).isZero();
    }

    /** A loopback port nobody listens on: bound, noted, and closed again. */
    private static Endpoint closedPort() throws Exception {
        try (ServerSocket socket = new ServerSocket()) {
            socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            return new Endpoint(socket.getInetAddress().getHostAddress(), socket.getLocalPort());
        }
    }
}
