package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.cli.ServedGateway;
import io.loomgate.config.ConfigLoader;
import io.loomgate.config.Plugins;
import io.loomgate.testkit.FreePorts;
import io.loomgate.testkit.JarProcess;
import io.loomgate.testkit.RawClient;
import io.loomgate.testkit.RunningGateway;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The gateway's admin port taken on purpose between the probe and the gateway's bind (clean-clone run 49 of session
 * 51, by chance): the gateway in this JVM ({@link ServedGateway}, as {@link RunningGateway#servedWithAdmin} starts it)
 * and the packaged jar ({@link JarProcess#listening}) are both started again on another port, which then serves.
 */
class PortLostBeforeBindIT {
    private static final String YAML = """
            server:
              address: 127.0.0.1
              port: 0
            admin:
              address: 127.0.0.1
              port: ${ADMIN_PORT}
            access-log:
              enabled: false
            routes: []
            """;

    @Test
    void aServedGatewayThatLostItsAdminPortIsStartedAgainOnAnother() throws Exception {
        List<Integer> tried = new ArrayList<>();
        try (ServerSocket thief = new ServerSocket();
             ServedGateway gw = FreePorts.start(admin -> {
                 tried.add(admin);
                 if (tried.size() == 1) {
                     thief.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), admin), 1);
                 }
                 return ServedGateway.start(RunningGateway.onTransportUnderTest(ConfigLoader.parse(YAML,
                         "gateway.yaml", Map.of("ADMIN_PORT", Integer.toString(admin)))), Plugins.NONE);
             })) {
            assertThat(tried).hasSize(2);
            assertThat(gw.adminPort()).isEqualTo(tried.get(1)).isNotEqualTo(thief.getLocalPort());
            assertLive(gw.adminPort());
        }
    }

    @Test
    void theJarThatLostItsAdminPortIsStartedAgainOnAnother(@TempDir Path dir) throws Exception {
        Path yaml = dir.resolve("gateway.yaml");
        Files.writeString(yaml, YAML);
        List<Integer> tried = new ArrayList<>();
        try (ServerSocket thief = new ServerSocket();
             JarProcess gw = JarProcess.listening(Duration.ofSeconds(60), admin -> {
                 tried.add(admin);
                 if (tried.size() == 1) {
                     thief.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), admin), 1);
                 }
                 return JarProcess.start(List.of("-Xmx64m"), List.of("serve", "--config", yaml.toString()),
                         Map.of("ADMIN_PORT", Integer.toString(admin)));
             })) {
            assertThat(tried).hasSize(2);
            assertThat(gw.adminPort()).isEqualTo(tried.get(1)).isNotEqualTo(thief.getLocalPort());
            assertLive(gw.adminPort());
        }
    }

    private static void assertLive(int adminPort) throws Exception {
        try (RawClient c = new RawClient(adminPort)) {
            c.socket().setSoTimeout(30_000);
            assertThat(c.send("GET /health/live HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n").read()
                    .status()).isEqualTo(200);
        }
    }
}
