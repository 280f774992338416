package io.loomgate.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The demo's admin listener needs a real port, chosen free and bound a moment later: a port another process takes in
 * between is tried again on a new one. Here it is taken on purpose, by a listening socket of this JVM.
 */
class DemoAdminPortTest {
    @Test
    void aTakenAdminPortIsTriedAgainOnANewOne() throws Exception {
        try (ServerSocket taken = listen(); ServerSocket next = listen()) {
            int free = next.getLocalPort();
            next.close(); // free again: the second attempt's port
            AtomicInteger calls = new AtomicInteger();
            ServedGateway gw = DemoCommand.startGateway(9, 0,
                    () -> calls.getAndIncrement() == 0 ? taken.getLocalPort() : free);
            try {
                assertThat(gw.adminPort()).isEqualTo(free);
                assertThat(calls).hasValue(2);
            } finally {
                gw.close();
            }
        }
    }

    @Test
    void anAdminPortTakenEveryTimeFailsWithTheBind() throws Exception {
        try (ServerSocket taken = listen()) {
            AtomicInteger calls = new AtomicInteger();
            assertThatThrownBy(() -> DemoCommand.startGateway(9, 0, () -> {
                calls.incrementAndGet();
                return taken.getLocalPort();
            })).isInstanceOf(IOException.class).hasMessageStartingWith("the admin listener");
            assertThat(calls).hasValue(DemoCommand.ADMIN_PORT_ATTEMPTS);
        }
    }

    @Test
    void aTakenGatewayPortIsNotTriedAgain() throws Exception {
        try (ServerSocket taken = listen(); ServerSocket admin = listen()) {
            int free = admin.getLocalPort();
            admin.close();
            AtomicInteger calls = new AtomicInteger();
            assertThatThrownBy(() -> DemoCommand.startGateway(9, taken.getLocalPort(), () -> {
                calls.incrementAndGet();
                return free;
            })).isInstanceOf(IOException.class);
            assertThat(calls).as("the admin port is not what failed").hasValue(1);
        }
    }

    @Test
    void aFailureWithoutAMessageIsNotALostAdminBind() {
        // A BindException made without a message (null), or any failure wrapping one: thrown as it is, not read as
        // the admin listener's lost port, and never a NullPointerException in its place.
        assertThat(DemoCommand.lostAdminBind(new BindException())).isFalse();
        assertThat(DemoCommand.lostAdminBind(new IOException((String) null, new IOException(new BindException()))))
                .isFalse();
    }

    private static ServerSocket listen() throws IOException {
        return new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    }
}
