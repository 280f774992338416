package io.loomgate.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.loomgate.server.Transport;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code server.transport}: jdk by default, auto and jdk accepted everywhere, a value that is none of the three
 * refused naming the key and the line, and epoll refused (saying why) where it cannot run: here, in loomgate-core's
 * own tests, the module loomgate-epoll is not on the class path (loomgate-epoll's tests accept it).
 */
class TransportConfigTest {
    private static GatewayConfig parse(String serverLines) throws ConfigException {
        return ConfigLoader.parse("server:\n  port: 0\n" + serverLines, "gateway.yaml", Map.of());
    }

    @Test
    void jdkByDefaultAndAutoAndJdkAreAccepted() throws ConfigException {
        assertThat(parse("").server().transport()).isEqualTo(Transport.JDK);
        assertThat(parse("  transport: auto\n").server().transport()).isEqualTo(Transport.AUTO);
        assertThat(parse("  transport: JDK\n").server().transport()).isEqualTo(Transport.JDK);
    }

    @Test
    void anUnknownTransportIsRefusedNamingTheKeyAndLine() {
        assertThatThrownBy(() -> parse("  transport: io_uring\n"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("gateway.yaml:3: server.transport: expected auto, jdk or epoll, got 'io_uring'");
    }

    @Test
    void epollWithoutItsModuleIsRefusedNamingTheModule() {
        assertThatThrownBy(() -> parse("  transport: epoll\n"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("server.transport")
                .hasMessageContaining("loomgate-epoll");
    }
}
