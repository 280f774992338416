package io.loomgate.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.server.Transport;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** With loomgate-epoll on the class path (Linux, Java 22+), {@code server.transport: epoll} is accepted. */
class EpollTransportConfigTest {
    @Test
    void epollIsAcceptedWhereItsModuleRuns() throws ConfigException {
        assertThat(Transport.epollUnavailableReason()).isNull();
        GatewayConfig c = ConfigLoader.parse("server:\n  port: 0\n  transport: epoll\n", "gateway.yaml", Map.of());
        assertThat(c.server().transport()).isEqualTo(Transport.EPOLL);
    }
}
