package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.JarProcess;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Mistakes that used to pass validation and fail only once the gateway ran (an overflowing duration, the admin
 * listener on the gateway's port) stop the process before anything listens: file, line, key, exit status 2.
 */
class RunTimeMistakesRefusedIT {

    @Test
    void anOverflowingDurationAndAPortClashExitWithStatus2(@TempDir Path dir) throws Exception {
        int port;
        try (ServerSocket probe = new ServerSocket(0)) { // a free port, in case a regression makes it listen
            port = probe.getLocalPort();
        }
        Path yaml = dir.resolve("gateway.yaml");
        Files.writeString(yaml, """
                server:
                  port: %d
                  idle-timeout: 106752d
                admin:
                  port: 0
                routes: []
                """.formatted(port));
        try (JarProcess p = JarProcess.start(List.of(), List.of("serve", "--config", yaml.toString()), Map.of())) {
            assertThat(p.awaitExit(Duration.ofSeconds(30))).isEqualTo(2);
            assertThat(p.output()).contains(yaml + ":3: server.idle-timeout: duration '106752d' is too large")
                    .doesNotContain("listening on").doesNotContain("ArithmeticException");
        }
        Files.writeString(yaml, """
                server:
                  port: %d
                admin:
                  port: %d
                routes: []
                """.formatted(port, port));
        try (JarProcess p = JarProcess.start(List.of(), List.of("serve", "--config", yaml.toString()), Map.of())) {
            assertThat(p.awaitExit(Duration.ofSeconds(30))).isEqualTo(2);
            assertThat(p.output()).contains(yaml + ":4: admin.port: " + port + " is also server.port (line 2)")
                    .doesNotContain("listening on");
        }
    }
}
